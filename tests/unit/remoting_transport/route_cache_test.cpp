// Which brokers answer "who is in my group": RouteCache::brokers_of names one address per broker of the
// topic's route (the union of their answers is the member list: a restarted broker knows only the members
// that have reconnected so far).

#include <string>
#include <utility>
#include <vector>

#include "route_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/remoting/bodies.hpp>

#include <rmq/detail/remoting_transport/route_cache.hpp>

using rmq_test::route_of;

TEST_CASE("the member list is asked of every broker of the route", "[remoting_transport][route]") {
    rmq::detail::RouteCache routes;
    routes.store("T", route_of({{"broker-a", "10.0.0.1:10911"}, {"broker-b", "10.0.0.2:10911"}}));
    CHECK(routes.brokers_of("T") == std::vector<std::string>{"10.0.0.1:10911", "10.0.0.2:10911"});
    routes.store("Solo", route_of({{"broker-a", "10.0.0.1:10911"}}));
    CHECK(routes.brokers_of("Solo") == std::vector<std::string>{"10.0.0.1:10911"});
    CHECK(routes.brokers_of("Unknown").empty());
}
