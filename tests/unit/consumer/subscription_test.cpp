// The tag-filter pitfall: members of one group with different subscriptions are detected and reported.

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;

namespace {

using PushConsumer =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

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
    // Both see each other (the queues are split) before the flag is read.
    REQUIRE(eventually([&] { return a.assigned_queues().size() >= 2 && b.assigned_queues().size() >= 2; }));
    REQUIRE(eventually([&] {
        for (const auto& m : broker.group_members("sub_same")) {
            if (m.consumer_data.subscription_data_set.empty()) {
                return false;
            }
        }
        return broker.group_members("sub_same").size() == 2;
    }));
    CHECK_FALSE(a.subscription_inconsistent());
    CHECK_FALSE(b.subscription_inconsistent());
    a.shutdown();
    b.shutdown();
}
