// rmq_chaos_check DIR TITLE ORDERED [WINDOW_S [POP_INVISIBLE_MS]]: reads the logs of one chaos run
// (tests/chaos/logs.hpp; POP_INVISIBLE_MS for a run of POP members: the checker's POP rules),
// prints the report as markdown on stdout and its figures as one JSON object on the last line of
// DIR/report.json, with the longest double ownership of a queue (tests/support/chaos_ownership.hpp). Exit
// status 0 when the run met the goal (Report::ok), 1 when not, 2 on bad input.

#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "chaos_ownership.hpp"
#include "logs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace {

// The longest double ownership, and every span over 2 s with the faults just before it.
void print_ownership(const rmq_chaos::OwnershipReport& o, const std::vector<rmq_chaos::Fault>& faults) {
    if (!o.sampled) {
        fmt::print("Double ownership: not measured (no .owns files).\n\n");
        return;
    }
    const auto* longest = o.longest();
    if (longest == nullptr) {
        fmt::print("Double ownership: none (no queue ever had two live owners).\n\n");
        return;
    }
    const std::int64_t t0 = faults.empty() ? 0 : faults.front().time_us;
    fmt::print("Double ownership: longest {} ms ({} by {} from {:.1f} s), {} spans, {} over 2 s.\n",
               longest->millis(),
               longest->queue,
               fmt::join(longest->members, " and "),
               static_cast<double>(longest->from - t0) / 1e6,
               o.spans.size(),
               o.over(2000));
    for (const auto& d : o.spans) {
        if (d.millis() <= 2000) {
            continue;
        }
        std::string before;
        for (const auto& f : faults) {
            if (f.time_us <= d.from && d.from - f.time_us < 10'000'000) {
                before += fmt::format(" {} {} at {:.1f} s;",
                                      rmq_chaos::to_string(f.kind),
                                      f.target,
                                      static_cast<double>(f.time_us - t0) / 1e6);
            }
        }
        fmt::print("- {} by {} from {:.1f} s for {} ms (faults in the 10 s before:{})\n",
                   d.queue,
                   fmt::join(d.members, " and "),
                   static_cast<double>(d.from - t0) / 1e6,
                   d.millis(),
                   before.empty() ? " none" : before);
    }
    fmt::print("\n");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        fmt::print(stderr, "usage: rmq_chaos_check DIR TITLE ORDERED(0|1) [WINDOW_S [POP_INVISIBLE_MS]]\n");
        return 2;
    }
    try {
        const std::filesystem::path dir = argv[1];
        const bool ordered = std::string(argv[3]) == "1";
        rmq_chaos::Options o;
        if (argc > 4) {
            o.window_us = std::stoll(argv[4]) * 1'000'000;
        }
        if (argc > 5) {
            o.pop_invisible_us = std::stoll(argv[5]) * 1000;
        }
        const auto input = rmq_chaos::read_run(dir);
        const auto r = rmq_chaos::check(input, o);
        const auto owners = rmq_chaos::double_ownership(dir, input.faults);
        fmt::print("{}", rmq_chaos::to_markdown(r, argv[2], ordered));
        print_ownership(owners, input.faults);
        nlohmann::json j{{"title", argv[2]},
                         {"ordered", ordered},
                         {"pop_invisible_ms", o.pop_invisible_us / 1000},
                         {"ok", r.ok(ordered)},
                         {"sent", r.sent},
                         {"send_failures", r.send_failures},
                         {"handled", r.handled},
                         {"unique", r.unique},
                         {"lost", r.lost},
                         {"unknown", r.unknown},
                         {"duplicates", r.duplicates},
                         {"out_of_order", r.out_of_order},
                         {"interleaved", r.interleaved},
                         {"rewinds", r.rewinds},
                         {"keys", r.keys},
                         {"longest_stall_ms", r.longest_stall.wait_us / 1000},
                         {"longest_stall_key", r.longest_stall.key},
                         {"faults", r.faults}};
        if (owners.sampled) {
            const auto* longest = owners.longest();
            j["double_ownership"] = {
                {"longest_ms", longest != nullptr ? longest->millis() : 0},
                {"longest_queue", longest != nullptr ? longest->queue : ""},
                {"longest_members", longest != nullptr ? longest->members : std::vector<std::string>{}},
                {"spans", owners.spans.size()},
                {"over_2s", owners.over(2000)}};
        }
        for (int c = 0; c < rmq_chaos::cause_count; ++c) {
            j["duplicates_by_cause"][std::string(rmq_chaos::to_string(static_cast<rmq_chaos::Cause>(c)))] =
                r.by(static_cast<rmq_chaos::Cause>(c));
        }
        for (const auto& s : r.shutdowns) {
            j["shutdown_ms"].push_back((s.done_us - s.requested_us) / 1000);
        }
        std::ofstream(dir / "report.json") << j.dump() << "\n";
        return r.ok(ordered) ? 0 : 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "rmq_chaos_check: {}\n", e.what());
        return 2;
    }
}
