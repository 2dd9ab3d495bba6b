// Java's registerTopicMessageQueueChangeListener on rmq::LitePullConsumer: the listener hears of a watched
// topic's queues only when they change, with all of them; misuse is a typed exception.

#include <mutex>
#include <string>
#include <vector>

#include "lite_pull_support.hpp"

#include <catch2/catch.hpp>

namespace topic_watch_test {

namespace {

using lite_pull_test::fast_config;
using lite_pull_test::LitePull;

/// What the listener was told, under one mutex (it runs on the event loop).
struct Heard {
    std::mutex mutex;
    std::vector<std::pair<std::string, std::vector<rmq::MessageQueue>>> calls;

    auto listener() {
        return [this](const std::string& topic, const std::vector<rmq::MessageQueue>& queues) {
            const std::lock_guard lock(mutex);
            calls.emplace_back(topic, queues);
        };
    }

    std::vector<std::pair<std::string, std::vector<rmq::MessageQueue>>> snapshot() {
        const std::lock_guard lock(mutex);
        return calls;
    }
};

}  // namespace

TEST_CASE("lite pull: a topic queue change listener hears of added queues, once per change",
          "[lite_pull][api]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpWatch", 2);
    broker.create_topic("LpWatchOther", 2);
    auto config = fast_config("cg_lp_watch");
    config.topic_metadata_check_interval_millis = 50;
    LitePull consumer{broker.connect(), config};
    Heard heard;
    consumer.register_topic_message_queue_change_listener("LpWatch", heard.listener());
    consumer.assign({broker.queue("LpWatch", 0)});
    consumer.start();
    Heard other;
    consumer.register_topic_message_queue_change_listener("LpWatchOther", other.listener());

    broker.create_topic("LpWatch", 4);  // grows to four queues
    REQUIRE(lite_pull_test::eventually([&] { return !heard.snapshot().empty(); }));
    broker.create_topic("LpWatchOther", 3);
    REQUIRE(lite_pull_test::eventually([&] { return !other.snapshot().empty(); }));
    // the first change was told once: checks since then found the same queues
    const auto calls = heard.snapshot();
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].first == "LpWatch");
    std::vector<rmq::MessageQueue> four;
    for (int q = 0; q < 4; ++q) {
        four.push_back(broker.queue("LpWatch", q));
    }
    CHECK(calls[0].second == four);
    REQUIRE(other.snapshot().size() == 1);
    CHECK(other.snapshot()[0].second.size() == 3);
    consumer.shutdown();
}

TEST_CASE("lite pull: a topic queue change listener needs a topic and a listener, and a valid interval",
          "[lite_pull][api]") {
    rmq::InProcessBroker broker;
    LitePull consumer{broker.connect(), fast_config("cg_lp_watch_bad")};
    CHECK_THROWS_AS(consumer.register_topic_message_queue_change_listener("", Heard{}.listener()),
                    rmq::InvalidArgument);
    CHECK_THROWS_AS(consumer.register_topic_message_queue_change_listener("T", nullptr),
                    rmq::InvalidArgument);
    auto config = fast_config("cg_lp_watch_bad2");
    config.topic_metadata_check_interval_millis = 0;
    LitePull bad{broker.connect(), config};
    CHECK_THROWS_WITH(bad.start(), Catch::Contains("topic_metadata_check_interval_millis"));
}

}  // namespace topic_watch_test
