// The chaos suite's double-ownership measure (tests/support/chaos_ownership.hpp) on hand-made .owns files: a
// span begins when a second live member owns a queue and ends when one lets go, is killed or is paused.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "chaos_ownership.hpp"
#include <unistd.h>

#include <catch2/catch.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace chaos_ownership_test {

namespace {

using rmq_chaos::Fault;
using rmq_chaos::FaultKind;

constexpr std::int64_t s = 1'000'000;  // one second in microseconds

struct RunDir {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("rmq_chaos_ownership_" + std::to_string(getpid()));

    RunDir() { std::filesystem::create_directories(dir / "members"); }

    RunDir(const RunDir&) = delete;
    RunDir& operator=(const RunDir&) = delete;

    ~RunDir() { std::filesystem::remove_all(dir); }

    void owns(const std::string& member,
              const std::vector<std::pair<std::int64_t, std::string>>& lines) const {
        std::ofstream out(dir / "members" / (member + ".owns"));
        for (const auto& [t, queues] : lines) {
            out << t << '\t' << queues << '\n';
        }
        out << 99 * s << "\t"
            << "broker-a:";  // a line cut short by kill -9: ignored
    }
};

}  // namespace

TEST_CASE("double ownership: spans while two live members own a queue", "[chaos]") {
    const RunDir run;
    // m1 owns a:0, a:1 from 1 s; m2 takes a:1 at 3 s and m1 lets it go at 4.5 s; m2 takes a:0 at 6 s and is
    // killed at 7 s; m3 owns b:0 with m1 from 8 s, m1 paused 9 s .. 20 s
    run.owns("m1",
             {{1 * s, "broker-a:0,broker-a:1"},
              {4 * s + s / 2, "broker-a:0,broker-b:0"},
              {8 * s, "broker-a:0,broker-b:0"}});
    run.owns("m2", {{3 * s, "broker-a:1"}, {6 * s, "broker-a:0,broker-a:1"}});
    run.owns("m3", {{8 * s, "broker-b:0"}});
    const std::vector<Fault> faults{
        {7 * s, FaultKind::Kill, "m2"}, {9 * s, FaultKind::Pause, "m1"}, {20 * s, FaultKind::Resume, "m1"}};
    const auto r = rmq_chaos::double_ownership(run.dir, faults);
    REQUIRE(r.sampled);
    REQUIRE(r.longest() != nullptr);
    CHECK(r.longest()->queue == "broker-a:1");
    CHECK(r.longest()->millis() == 1500);
    CHECK(r.longest()->members == std::vector<std::string>{"m1", "m2"});
    // a:1 3..4.5 s, a:0 6..7 s, b:0 8..9 s, then b:0 again from the resume to the end (20 s: no later event)
    REQUIRE(r.spans.size() == 4);
    CHECK(r.over(1000) == 1);
    CHECK(r.over(2000) == 0);
}

TEST_CASE("double ownership: a run without .owns files is not measured", "[chaos]") {
    const RunDir run;
    const auto r = rmq_chaos::double_ownership(run.dir, {});
    CHECK_FALSE(r.sampled);
    CHECK(r.longest() == nullptr);
}

}  // namespace chaos_ownership_test
