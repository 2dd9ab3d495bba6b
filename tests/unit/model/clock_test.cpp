// rmq::Clock: the coarse steady reading the statistics and last-activity stamps use.

#include <cstdint>
#include <memory>

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>

TEST_CASE(
    "the system clock's coarse steady time is its steady time on the same epoch, a few ms behind at most",
    "[clock]") {
    const auto clock = rmq::system_clock();
    std::int64_t last = clock->coarse_steady_millis();
    for (int i = 0; i < 10'000; ++i) {
        const std::int64_t before = clock->steady_millis();
        const std::int64_t coarse = clock->coarse_steady_millis();
        const std::int64_t after = clock->steady_millis();
        REQUIRE(coarse <= after);
        REQUIRE(coarse >= before - 20);  // one scheduler tick (1-10 ms), with room
        REQUIRE(coarse >= last);         // monotonic
        last = coarse;
    }
}

TEST_CASE("a clock without a coarse reading of its own gives its steady time", "[clock]") {
    rmq::ManualClock manual;
    manual.advance(rmq::Millis(1234));
    CHECK(manual.coarse_steady_millis() == 1234);
    CHECK(manual.coarse_steady_millis() == manual.steady_millis());

    struct Fixed final : rmq::Clock {
        [[nodiscard]] std::int64_t steady_millis() const override { return 42; }

        [[nodiscard]] std::int64_t wall_millis() const override { return 7; }
    };

    const Fixed fixed;
    CHECK(fixed.coarse_steady_millis() == 42);
}
