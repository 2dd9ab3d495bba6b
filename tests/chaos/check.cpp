// rmq_chaos_check DIR TITLE ORDERED [WINDOW_S]: reads the logs of one chaos run (tests/chaos/logs.hpp),
// prints the report as markdown on stdout and its figures as one JSON object on the last line of
// DIR/report.json. Exit status 0 when the run met the goal (Report::ok), 1 when not, 2 on bad input.

#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "logs.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
    if (argc < 4) {
        fmt::print(stderr, "usage: rmq_chaos_check DIR TITLE ORDERED(0|1) [WINDOW_S]\n");
        return 2;
    }
    try {
        const std::filesystem::path dir = argv[1];
        const bool ordered = std::string(argv[3]) == "1";
        rmq_chaos::Options o;
        if (argc > 4) {
            o.window_us = std::stoll(argv[4]) * 1'000'000;
        }
        const auto r = rmq_chaos::check(rmq_chaos::read_run(dir), o);
        fmt::print("{}", rmq_chaos::to_markdown(r, argv[2], ordered));
        nlohmann::json j{{"title", argv[2]},
                         {"ordered", ordered},
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
