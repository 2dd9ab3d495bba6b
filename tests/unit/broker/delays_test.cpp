// The delay schedule alone (detail/broker/delays.hpp): the rewrite into SCHEDULE_TOPIC_XXXX and due order.

#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>
#include <rmq/message.hpp>

#include <rmq/detail/broker/delays.hpp>

TEST_CASE(
    "broker delays: a delayed message waits in the schedule topic's level queue, clamped to the table") {
    rmq::detail::DelaySchedule schedule({1000, 5000});
    rmq::ManualClock clock;
    rmq::MessageExt plain;
    plain.set_topic("T");
    CHECK_FALSE(schedule.redirect(plain, clock).has_value());
    CHECK(plain.topic() == "T");

    rmq::MessageExt m;
    m.set_topic("T");
    m.set_queue_id(3);
    m.set_delay_time_level(7);  // beyond the table: the last level
    const auto wait = schedule.redirect(m, clock);
    REQUIRE(wait.has_value());
    CHECK(wait->due == clock.steady_millis() + 5000);
    CHECK(wait->tags_code == clock.wall_millis() + 5000);
    CHECK(m.topic() == rmq::detail::schedule_topic);
    CHECK(m.queue_id() == 1);
    CHECK(m.delay_time_level() == 2);
    CHECK(m.property_view(rmq::property::real_topic) == "T");
    CHECK(m.property_view(rmq::property::real_queue_id) == "3");
}

TEST_CASE("broker delays: due messages come back for their real topic, earliest first") {
    rmq::detail::DelaySchedule schedule({1000});
    auto stored = [](const std::string& real_topic, const std::string& qid) {
        rmq::MessageExt m;
        m.set_topic(std::string(rmq::detail::schedule_topic));
        m.set_property(rmq::property::real_topic, real_topic);
        m.set_property(rmq::property::real_queue_id, qid);
        m.set_body("b");
        return std::make_shared<const rmq::MessageExt>(std::move(m));
    };
    schedule.add(200, stored("B", "2"));
    schedule.add(100, stored("A", "1"));
    schedule.add(300, stored("C", "0"));
    CHECK(schedule.count() == 3);
    CHECK(schedule.next_due() == 100);
    CHECK(schedule.take_due(99).empty());
    const auto due = schedule.take_due(200);
    REQUIRE(due.size() == 2);
    CHECK(due[0].topic() == "A");
    CHECK(due[0].queue_id() == 1);
    CHECK(due[1].topic() == "B");
    CHECK(due[1].body() == "b");
    CHECK(schedule.count() == 1);
    CHECK(schedule.next_due() == 300);
}
