// The tag-filter pitfall: members of one group with different subscriptions are detected and reported.

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::PushConsumer;

namespace {

auto ok_listener() {
    return [](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    };
}

}  // namespace

TEST_CASE("members with different tags are reported as inconsistent", "[consumer][subscription]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Pitfall", 4);
    PushConsumer a{broker.connect(), fast_config("sub_pitfall")};
    PushConsumer b{broker.connect(), fast_config("sub_pitfall")};
    a.subscribe("Pitfall", "TagA");
    b.subscribe("Pitfall", "TagB");
    a.register_listener(ok_listener());
    b.register_listener(ok_listener());
    a.start();
    b.start();
    REQUIRE(eventually([&] { return a.subscription_inconsistent() && b.subscription_inconsistent(); }));
    const auto stats = a.stats();
    CHECK(stats.subscription_inconsistent);
    CHECK_THAT(stats.subscription_inconsistent_detail, Catch::Contains("TagB"));
    a.shutdown();
    b.shutdown();
}

TEST_CASE("members with identical subscriptions are consistent", "[consumer][subscription]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Same", 4);
    PushConsumer a{broker.connect(), fast_config("sub_same")};
    PushConsumer b{broker.connect(), fast_config("sub_same")};
    a.subscribe("Same", "TagA || TagB");
    b.subscribe("Same", "TagA || TagB");
    a.register_listener(ok_listener());
    b.register_listener(ok_listener());
    a.start();
    b.start();
    // A negative flag proves nothing until the detector has run with both members registered. So first let
    // it see a third member that differs (it must flag that), then let that member leave: the flag clears
    // only when a later check finds the remaining identical subscriptions consistent.
    PushConsumer odd{broker.connect(), fast_config("sub_same")};
    odd.subscribe("Same", "TagC");
    odd.register_listener(ok_listener());
    odd.start();
    REQUIRE(eventually([&] { return a.subscription_inconsistent() && b.subscription_inconsistent(); }));
    odd.shutdown();
    CHECK(eventually([&] { return !a.subscription_inconsistent() && !b.subscription_inconsistent(); }));
    a.shutdown();
    b.shutdown();
}
