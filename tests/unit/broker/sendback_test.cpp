// Send-back, retry and dead-letter topics and delayed delivery (docs/embedded-broker.md: Send-back, Delays).

#include <string>
#include <vector>

#include "broker_test_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/transport/in_process.hpp>

using broker_test::Fixture;
using broker_test::PullCatcher;

namespace {

const std::vector<std::int64_t> default_delays{1000,
                                               5000,
                                               10000,
                                               30000,
                                               60000,
                                               120000,
                                               180000,
                                               240000,
                                               300000,
                                               360000,
                                               420000,
                                               480000,
                                               540000,
                                               600000,
                                               1200000,
                                               1800000,
                                               3600000,
                                               7200000};

rmq::MessageExt send_original(Fixture& f) {
    rmq::Message m("TopicTest", "TagA", "KEY1", "payload");
    m.set_property(rmq::property::uniq_client_message_id_keyidx, "UNIQ1");
    f.transport->send(m, f.mq(2));
    auto stored = f.broker->messages("TopicTest", 2);
    REQUIRE(stored.size() == 1);
    return stored[0];
}

rmq::SendBackArgs back(const rmq::MessageExt& m, std::int32_t level = 0, std::int32_t max = 16) {
    rmq::SendBackArgs a;
    a.group = "G";
    a.message = m;
    a.delay_level = level;
    a.max_reconsume_times = max;
    return a;
}

rmq::MessageExt last(Fixture& f, const std::string& topic, std::int32_t queue = 0) {
    auto msgs = f.broker->messages(topic, queue);
    REQUIRE_FALSE(msgs.empty());
    return msgs.back();
}

}  // namespace

TEST_CASE("broker: delay levels parse with s, m, h and d units") {
    CHECK(rmq::detail::parse_delay_levels(rmq::BrokerConfig{}.message_delay_level) == default_delays);
    CHECK(rmq::detail::parse_delay_levels("2s 3m 1h 1d") ==
          std::vector<std::int64_t>{2000, 180000, 3600000, 86400000});
    CHECK_THROWS_AS(rmq::detail::parse_delay_levels("1x"), rmq::InvalidArgument);
    CHECK_THROWS_AS(rmq::detail::parse_delay_levels(""), rmq::InvalidArgument);
    rmq::BrokerConfig bad;
    bad.message_delay_level = "1s s";
    CHECK_THROWS_AS(rmq::InProcessBroker(bad), rmq::InvalidArgument);
}

TEST_CASE("broker: send-back stores a delayed retry message with Java's properties") {
    Fixture f;
    const auto original = send_original(f);
    f.transport->send_back(back(original));
    CHECK(f.broker->has_topic("%RETRY%G"));
    CHECK(f.broker->messages("%RETRY%G", 0).empty());
    CHECK(f.broker->scheduled_count() == 1);

    const auto parked = last(f, "SCHEDULE_TOPIC_XXXX", 2);  // level 3 -> queue 2
    CHECK(parked.property(rmq::property::real_topic) == "%RETRY%G");
    CHECK(parked.property(rmq::property::real_queue_id) == "0");
    CHECK(parked.property(rmq::property::delay_time_level) == "3");
    CHECK(parked.reconsume_times() == 1);

    // A consumer of the retry topic is parked until the delay passes.
    f.subscribe("G", "c1", "%RETRY%G", "*");
    PullCatcher c;
    auto a = f.args(0, 0, rmq::pull_sys_flag::suspend);
    a.mq = f.mq(0, "%RETRY%G");
    a.suspend_timeout_millis = 60000;
    f.transport->pull(a, c.callback());
    f.clock->advance(rmq::Millis(9999));
    f.broker->drain();
    CHECK_FALSE(c.done());
    f.clock->advance(rmq::Millis(1));
    const auto r = c.wait();
    REQUIRE(r.ok());
    REQUIRE(r.value().msg_found_list.size() == 1);
    const auto& retry = r.value().msg_found_list[0];
    CHECK(retry.topic() == "%RETRY%G");
    CHECK(retry.queue_id() == 0);
    CHECK(retry.queue_offset() == 0);
    CHECK(retry.reconsume_times() == 1);
    CHECK(retry.body() == "payload");
    CHECK(retry.tags() == "TagA");
    CHECK(retry.keys() == "KEY1");
    CHECK(retry.property(rmq::property::retry_topic) == "TopicTest");
    CHECK(retry.property(rmq::property::origin_message_id) == original.offset_msg_id());
    CHECK(retry.property(rmq::property::uniq_client_message_id_keyidx) == "UNIQ1");
    CHECK(retry.msg_id() == "UNIQ1");
    CHECK(retry.property(rmq::property::real_topic) == "%RETRY%G");
    CHECK(retry.property(rmq::property::real_queue_id) == "0");
    CHECK(retry.property(rmq::property::delay_time_level) == "3");  // kept in the stored properties
    CHECK(retry.property(rmq::property::wait_store_msg_ok) == "false");
    CHECK(retry.born_timestamp() == original.born_timestamp());
    CHECK(retry.commit_log_offset() > parked.commit_log_offset());
    CHECK(retry.offset_msg_id() != original.offset_msg_id());
    CHECK(f.broker->scheduled_count() == 0);
}

TEST_CASE("broker: retry levels follow 3 + reconsume times until the DLQ") {
    Fixture f;
    auto msg = send_original(f);
    const auto origin = msg.offset_msg_id();
    for (std::int32_t times = 0; times < 16; ++times) {
        INFO("reconsume times " << times);
        f.transport->send_back(back(msg));
        const auto level = std::min(3 + times, 18);
        const auto delay = default_delays[static_cast<std::size_t>(level - 1)];
        const auto before = f.broker->messages("%RETRY%G", 0).size();
        f.clock->advance(rmq::Millis(delay - 1));
        CHECK(f.broker->messages("%RETRY%G", 0).size() == before);
        f.clock->advance(rmq::Millis(1));
        REQUIRE(f.broker->messages("%RETRY%G", 0).size() == before + 1);
        msg = last(f, "%RETRY%G");
        CHECK(msg.reconsume_times() == times + 1);
        CHECK(msg.property(rmq::property::origin_message_id) == origin);
        CHECK(msg.property(rmq::property::retry_topic) == "TopicTest");
    }
    CHECK(msg.reconsume_times() == 16);
    f.transport->send_back(back(msg));  // 16 >= 16: dead letter, at once
    CHECK(f.broker->scheduled_count() == 0);
    const auto dead = last(f, "%DLQ%G");
    CHECK(dead.topic() == "%DLQ%G");
    CHECK(dead.queue_id() == 0);
    CHECK(dead.reconsume_times() == 17);
    CHECK(dead.property(rmq::property::delay_time_level) == "0");
    CHECK(dead.property(rmq::property::origin_message_id) == origin);
    CHECK(dead.property(rmq::property::retry_topic) == "TopicTest");
    CHECK(dead.msg_id() == "UNIQ1");
    CHECK(f.transport->topic_route("%DLQ%G").read_queues.size() == 1);
}

TEST_CASE("broker: send-back with a client level, level -1 and a client max") {
    Fixture f;
    const auto original = send_original(f);

    f.transport->send_back(back(original, 5));  // 1 minute
    CHECK(f.broker->messages("SCHEDULE_TOPIC_XXXX", 4).size() == 1);
    f.clock->advance(rmq::Millis(60000));
    CHECK(f.broker->messages("%RETRY%G", 0).size() == 1);

    f.transport->send_back(back(original, 40));  // clamped to the last level (2 h)
    CHECK(f.broker->messages("SCHEDULE_TOPIC_XXXX", 17).size() == 1);
    CHECK(f.broker->messages("SCHEDULE_TOPIC_XXXX", 17)[0].property(rmq::property::delay_time_level) == "18");
    f.clock->advance(rmq::Millis(7200000));
    CHECK(f.broker->messages("%RETRY%G", 0).size() == 2);

    f.transport->send_back(back(original, -1));
    CHECK(f.broker->messages("%DLQ%G", 0).size() == 1);

    auto retried = last(f, "%RETRY%G");  // reconsume times 1
    f.transport->send_back(back(retried, 0, 1));
    CHECK(f.broker->messages("%DLQ%G", 0).size() == 2);
    CHECK(last(f, "%DLQ%G").reconsume_times() == 2);
}

TEST_CASE("broker: send-back of an unknown message fails and changes nothing") {
    Fixture f;
    rmq::MessageExt ghost("TopicTest", "body");
    ghost.set_commit_log_offset(123456);
    try {
        f.transport->send_back(back(ghost));
        FAIL("expected BrokerError");
    } catch (const rmq::BrokerError& e) {
        CHECK(e.code() == rmq::response_code::system_error);
    }
    CHECK_FALSE(f.broker->has_topic("%DLQ%G"));
    CHECK(f.broker->scheduled_count() == 0);
    CHECK_THROWS_AS(f.transport->send_back(rmq::SendBackArgs{}), rmq::InvalidArgument);  // blank group
}

TEST_CASE("broker: a DELAY property on send delays delivery to the real topic") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "TagA");
    rmq::Message m("TopicTest", "TagA", "", "later");
    m.set_delay_time_level(2);  // 5 s
    const auto sent = f.transport->send(m, f.mq(1));
    CHECK(sent.queue_offset == 0);  // offset in the schedule queue
    CHECK(f.broker->max_offset(f.mq(1)) == 0);
    PullCatcher c;
    f.transport->pull(f.args(1, 0, rmq::pull_sys_flag::suspend), c.callback());
    f.clock->advance(rmq::Millis(4999));
    f.broker->drain();
    CHECK_FALSE(c.done());
    f.clock->advance(rmq::Millis(1));
    const auto r = c.wait();
    REQUIRE(r.ok());
    REQUIRE(r.value().msg_found_list.size() == 1);
    CHECK(r.value().msg_found_list[0].body() == "later");
    CHECK(r.value().msg_found_list[0].topic() == "TopicTest");
    CHECK(r.value().msg_found_list[0].queue_id() == 1);
}

TEST_CASE("broker: a configured delay table is used") {
    rmq::BrokerConfig config;
    config.message_delay_level = "2s 4s";
    Fixture f(config);
    rmq::Message m("TopicTest", "TagA", "", "x");
    m.set_delay_time_level(7);  // clamped to level 2
    f.transport->send(m, f.mq(0));
    f.clock->advance(rmq::Millis(3999));
    CHECK(f.broker->max_offset(f.mq(0)) == 0);
    f.clock->advance(rmq::Millis(1));
    CHECK(f.broker->max_offset(f.mq(0)) == 1);
}

TEST_CASE("broker: sends to a retry topic go to the DLQ at max reconsume times") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "*");  // creates %RETRY%G
    rmq::Message m("%RETRY%G", "TagA", "", "orderly");
    m.set_property(rmq::property::reconsume_time, "3");
    m.set_property(rmq::property::max_reconsume_times, "5");
    f.transport->send(m, f.mq(0, "%RETRY%G"));
    const auto retry = last(f, "%RETRY%G");
    CHECK(retry.reconsume_times() == 3);
    CHECK_FALSE(retry.has_property(rmq::property::reconsume_time));
    CHECK_FALSE(retry.has_property(rmq::property::max_reconsume_times));

    m.set_property(rmq::property::reconsume_time, "5");
    const auto r = f.transport->send(m, f.mq(0, "%RETRY%G"));
    CHECK(r.queue_offset == 0);
    const auto dead = last(f, "%DLQ%G");
    CHECK(dead.reconsume_times() == 5);
    CHECK(f.broker->messages("%RETRY%G", 0).size() == 1);
}
