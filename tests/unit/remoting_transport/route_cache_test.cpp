// Which broker answers "who is in my group": RouteCache::any_broker_of passes over a broker reconnected
// within the last few seconds (a restarted broker knows only the members that have reconnected so far, and a
// rebalance on its partial list makes two members take the same queues).

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "route_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/remoting/bodies.hpp>

#include <rmq/detail/remoting_transport/route_cache.hpp>

using rmq_test::route_of;

TEST_CASE("the member list is asked of a broker that was not just reconnected",
          "[remoting_transport][route]") {
    rmq::detail::RouteCache routes;
    routes.store("T", route_of({{"broker-a", "10.0.0.1:10911"}, {"broker-b", "10.0.0.2:10911"}}));
    REQUIRE(routes.any_broker_of("T") == "10.0.0.1:10911");  // the first broker of the route

    routes.note_reconnected("10.0.0.1:10911");
    CHECK(routes.any_broker_of("T") == "10.0.0.2:10911");

    SECTION("when every broker was just reconnected, the first is still asked (an answer beats none)") {
        routes.note_reconnected("10.0.0.2:10911");
        CHECK(routes.any_broker_of("T") == "10.0.0.1:10911");
    }
    SECTION("a broker with no other in the route is asked at once") {
        routes.store("Solo", route_of({{"broker-a", "10.0.0.1:10911"}}));
        CHECK(routes.any_broker_of("Solo") == "10.0.0.1:10911");
    }
    SECTION("after the settle time the reconnected broker is first again") {
        const auto limit = std::chrono::steady_clock::now() +
                           std::chrono::milliseconds(rmq::detail::RouteCache::reconnect_settle_millis + 5000);
        while (routes.any_broker_of("T") != "10.0.0.1:10911" && std::chrono::steady_clock::now() < limit) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        CHECK(routes.any_broker_of("T") == "10.0.0.1:10911");
    }
    CHECK_FALSE(routes.any_broker_of("Unknown").has_value());
}
