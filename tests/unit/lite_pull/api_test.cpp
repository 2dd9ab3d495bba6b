// rmq::LitePullConsumer used wrongly: each misuse is a typed exception naming the problem.

#include <chrono>
#include <string>
#include <vector>

#include "lite_pull_support.hpp"

#include <catch2/catch.hpp>

using lite_pull_test::fast_config;
using lite_pull_test::LitePull;

TEST_CASE("lite pull: poll, seek and commits before start or after shutdown are IllegalState",
          "[lite_pull][api]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpApi", 2);
    LitePull consumer{broker.connect(), fast_config("cg_lp_api")};
    consumer.subscribe("LpApi");
    const auto mq = broker.queue("LpApi", 0);
    CHECK_THROWS_AS(consumer.poll(std::chrono::milliseconds(10)), rmq::IllegalState);
    CHECK_THROWS_AS(consumer.seek(mq, 0), rmq::IllegalState);
    CHECK_THROWS_AS(consumer.commit_sync(), rmq::IllegalState);
    CHECK_THROWS_AS(consumer.committed(mq), rmq::IllegalState);
    CHECK_THROWS_AS(consumer.offset_for_timestamp(mq, 0), rmq::IllegalState);
    consumer.start();
    CHECK_THROWS_AS(consumer.start(), rmq::IllegalState);
    CHECK_THROWS_AS(consumer.poll(std::chrono::milliseconds(-1)), rmq::InvalidArgument);
    consumer.shutdown();
    CHECK_THROWS_WITH(consumer.poll(std::chrono::milliseconds(10)), Catch::Contains("shut down"));
    CHECK_THROWS_AS(consumer.commit_async(), rmq::IllegalState);
}

TEST_CASE("lite pull: subscribe and assign are mutually exclusive", "[lite_pull][api]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpExcl", 2);
    LitePull assigned{broker.connect(), fast_config("cg_lp_excl")};
    assigned.assign({broker.queue("LpExcl", 0)});
    CHECK_THROWS_AS(assigned.subscribe("LpExcl"), rmq::IllegalState);

    LitePull subscribed{broker.connect(), fast_config("cg_lp_excl2")};
    subscribed.subscribe("LpExcl");
    CHECK_THROWS_AS(subscribed.assign({broker.queue("LpExcl", 0)}), rmq::IllegalState);
    CHECK_THROWS_AS(subscribed.assign({}), rmq::InvalidArgument);
}

TEST_CASE("lite pull: seek on a queue not assigned, or out of range, is refused", "[lite_pull][api]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpSeekBad", 2);
    lite_pull_test::produce(broker, "LpSeekBad", 2, 4);
    LitePull consumer{broker.connect(), fast_config("cg_lp_seek_bad")};
    consumer.assign({broker.queue("LpSeekBad", 0)});
    consumer.start();
    REQUIRE(lite_pull_test::eventually([&] { return consumer.assignment().size() == 1; }));
    CHECK_THROWS_WITH(consumer.seek(broker.queue("LpSeekBad", 1), 0), Catch::Contains("not assigned"));
    CHECK_THROWS_AS(consumer.seek(broker.queue("LpSeekBad", 1), 0), rmq::IllegalState);
    CHECK_THROWS_AS(consumer.seek(broker.queue("LpSeekBad", 0), 3), rmq::InvalidArgument);
    CHECK_THROWS_AS(consumer.seek(broker.queue("LpSeekBad", 0), -1), rmq::InvalidArgument);
}

TEST_CASE("lite pull: a bad configuration is refused at start, naming the field", "[lite_pull][api]") {
    rmq::InProcessBroker broker;
    auto config = fast_config("cg_lp_cfg");
    config.auto_commit_interval_millis = 10;
    LitePull consumer{broker.connect(), config};
    CHECK_THROWS_WITH(consumer.start(), Catch::Contains("auto_commit_interval_millis"));
    auto config2 = fast_config("cg_lp_cfg2");
    config2.pull_threshold_for_all = 0;
    LitePull consumer2{broker.connect(), config2};
    CHECK_THROWS_AS(consumer2.start(), rmq::InvalidArgument);
}
