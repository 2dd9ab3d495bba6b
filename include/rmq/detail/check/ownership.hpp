#pragma once

/// @file detail/check/ownership.hpp
/// rmq::detail::check::OwnershipTracker: turns samples of the members' assignments into double ownerships,
/// spans during which two or more live members owned one queue. The simulation (rmq::sim::Trace's
/// double_ownership, virtual ms, int members) and the real-cluster chaos suite (tests/support/
/// chaos_ownership.hpp, µs, named members) both feed it, so a span means the same in both.

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rmq::detail::check {

/// `Span`: an aggregate {queue, from, to, members} (rmq::sim::DoubleOwnership, rmq_chaos::DoubleOwnership);
/// its times in any one unit, its members a vector of the members' identities.
template <class Span>
class OwnershipTracker {
public:
    using Time = decltype(Span::from);
    using Member = typename decltype(Span::members)::value_type;
    /// Queue name -> its live owners.
    using Owners = std::map<std::string, std::set<Member>>;

    /// `owners` held from time `since` (the previous sample: what ran then made them) until now.
    void sample(Time since, const Owners& owners, std::vector<Span>& out) {
        for (auto it = open_.begin(); it != open_.end();) {
            const auto o = owners.find(it->first);
            if (o == owners.end() || o->second.size() < 2) {
                it->second.to = since;
                out.push_back(std::move(it->second));
                it = open_.erase(it);
            } else {
                ++it;
            }
        }
        for (const auto& [queue, members] : owners) {
            if (members.size() >= 2 && !open_.contains(queue)) {
                open_.emplace(queue, Span{queue, since, since, {members.begin(), members.end()}});
            }
        }
    }

    /// Ends every open span at `now`.
    void finish(Time now, std::vector<Span>& out) {
        for (auto& [queue, d] : open_) {
            d.to = now;
            out.push_back(std::move(d));
        }
        open_.clear();
    }

private:
    std::map<std::string, Span> open_;
};

}  // namespace rmq::detail::check
