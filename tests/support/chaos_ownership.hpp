#pragma once
// Double ownership in a chaos run (issue 30 §1): from the members' DIR/members/*.owns files (each change of
// a member's assignment: "time_us<TAB>broker:queue,..."; tests/chaos/member.cpp) and the fault log, the
// spans during which two or more live members owned one queue. A member is live from its first sample until
// it is killed or sent SIGTERM, and not while it is paused (SIGSTOP until SIGCONT). The spans themselves come
// from the simulation's tracker (rmq/detail/check/ownership.hpp).

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "chaos_check.hpp"

#include <rmq/detail/check/ownership.hpp>

namespace rmq_chaos {

struct DoubleOwnership {
    std::string queue;
    std::int64_t from = 0;  // µs
    std::int64_t to = 0;
    std::vector<std::string> members;  // the owners when it began

    [[nodiscard]] std::int64_t millis() const { return (to - from) / 1000; }
};

struct OwnershipReport {
    bool sampled = false;  // the members wrote .owns files (older runs did not)
    std::vector<DoubleOwnership> spans;

    [[nodiscard]] const DoubleOwnership* longest() const {
        const auto it = std::max_element(
            spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.millis() < b.millis(); });
        return it == spans.end() ? nullptr : &*it;
    }

    [[nodiscard]] std::size_t over(std::int64_t millis) const {
        return static_cast<std::size_t>(
            std::count_if(spans.begin(), spans.end(), [&](const auto& d) { return d.millis() > millis; }));
    }
};

namespace ownership_detail {

struct Event {
    std::int64_t time_us = 0;
    std::string member;

    enum Kind { Owns, Gone, Pause, Resume } kind = Owns;

    std::set<std::string> queues;
};

inline std::set<std::string> split_queues(const std::string& text) {
    std::set<std::string> out;
    std::istringstream in(text);
    for (std::string q; std::getline(in, q, ',');) {
        if (!q.empty()) {
            out.insert(q);
        }
    }
    return out;
}

inline std::vector<Event> events(const std::filesystem::path& dir, const std::vector<Fault>& faults) {
    std::vector<Event> ev;
    for (const auto& e : std::filesystem::directory_iterator(dir / "members")) {
        if (e.path().extension() != ".owns") {
            continue;
        }
        const std::string member = e.path().stem().string();
        std::ifstream in(e.path(), std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        // complete lines only: the last one of a member killed while writing it has no newline
        for (std::size_t begin = 0, end = 0; (end = text.find('\n', begin)) != std::string::npos;
             begin = end + 1) {
            const std::string line = text.substr(begin, end - begin);
            const auto tab = line.find('\t');
            if (tab != std::string::npos) {
                ev.push_back({std::stoll(line.substr(0, tab)),
                              member,
                              Event::Owns,
                              split_queues(line.substr(tab + 1))});
            }
        }
    }
    for (const auto& f : faults) {
        if (f.kind == FaultKind::Kill || f.kind == FaultKind::Term) {
            ev.push_back({f.time_us, f.target, Event::Gone, {}});
        } else if (f.kind == FaultKind::Pause) {
            ev.push_back({f.time_us, f.target, Event::Pause, {}});
        } else if (f.kind == FaultKind::Resume) {
            ev.push_back({f.time_us, f.target, Event::Resume, {}});
        }
    }
    std::stable_sort(
        ev.begin(), ev.end(), [](const Event& a, const Event& b) { return a.time_us < b.time_us; });
    return ev;
}

}  // namespace ownership_detail

inline OwnershipReport double_ownership(const std::filesystem::path& dir, const std::vector<Fault>& faults) {
    using ownership_detail::Event;
    OwnershipReport r;
    const auto ev = ownership_detail::events(dir, faults);
    r.sampled = std::any_of(ev.begin(), ev.end(), [](const Event& e) { return e.kind == Event::Owns; });
    std::map<std::string, std::set<std::string>> owns;  // live members' assignments
    std::set<std::string> gone;
    std::set<std::string> paused;
    rmq::detail::check::OwnershipTracker<DoubleOwnership> tracker;
    const auto look = [&](std::int64_t t) {
        decltype(tracker)::Owners owners;  // queue -> live owners
        for (const auto& [member, queues] : owns) {
            if (!gone.contains(member) && !paused.contains(member)) {
                for (const auto& q : queues) {
                    owners[q].insert(member);
                }
            }
        }
        tracker.sample(t, owners, r.spans);
    };
    for (std::size_t i = 0; i < ev.size(); ++i) {
        const Event& e = ev[i];
        switch (e.kind) {
        case Event::Owns:
            if (!gone.contains(e.member)) {
                owns[e.member] = e.queues;
            }
            break;
        case Event::Gone:
            gone.insert(e.member);
            break;
        case Event::Pause:
            paused.insert(e.member);
            break;
        case Event::Resume:
            paused.erase(e.member);
            break;
        }
        if (i + 1 == ev.size() || ev[i + 1].time_us != e.time_us) {
            look(e.time_us);
        }
    }
    if (!ev.empty()) {
        tracker.finish(ev.back().time_us, r.spans);
    }
    return r;
}

}  // namespace rmq_chaos
