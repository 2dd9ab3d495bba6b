#pragma once

/// @file detail/sim/ownership.hpp
/// rmq::detail::sim::OwnershipTracker: turns samples of the members' assignments into the trace's double
/// ownerships (rmq::sim::DoubleOwnership): spans during which two or more live members owned one queue.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <rmq/sim/trace.hpp>

namespace rmq::detail::sim {

class OwnershipTracker {
public:
    /// Queue name -> its live owners.
    using Owners = std::map<std::string, std::set<int>>;

    /// `owners` held from virtual time `since` (the previous sample: what ran then made them) until now.
    void sample(std::int64_t since, const Owners& owners, std::vector<rmq::sim::DoubleOwnership>& out) {
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
                open_.emplace(queue,
                              rmq::sim::DoubleOwnership{
                                  queue, since, since, std::vector<int>(members.begin(), members.end())});
            }
        }
    }

    /// Ends every open span at `now`.
    void finish(std::int64_t now, std::vector<rmq::sim::DoubleOwnership>& out) {
        for (auto& [queue, d] : open_) {
            d.to = now;
            out.push_back(std::move(d));
        }
        open_.clear();
    }

private:
    std::map<std::string, rmq::sim::DoubleOwnership> open_;
};

}  // namespace rmq::detail::sim
