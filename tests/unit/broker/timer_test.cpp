// 5.x timer messages on the embedded broker (detail/broker/timers.hpp): TIMER_DELIVER_MS / TIMER_DELAY_SEC /
// TIMER_DELAY_MS wait in rmq_sys_wheel_timer and reach their topic on the broker's clock.

#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>
#include <rmq/message.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

struct TimerEnv {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker;
    rmq::InProcessTransport transport;

    explicit TimerEnv(rmq::BrokerConfig config = {})
        : broker((config.clock = clock, config))
        , transport(broker.connect()) {
        broker.create_topic("T", 2);
    }

    rmq::SendResult send(const rmq::Message& m) { return transport.send(m, broker.queue("T", 1)); }

    std::size_t visible() const { return broker.messages("T", 1).size(); }

    std::size_t waiting() const { return broker.messages("rmq_sys_wheel_timer", 0).size(); }
};

rmq::Message timer_message() {
    rmq::Message m("T", "TagA", "KEY1", "timed");
    m.set_property(rmq::property::uniq_client_message_id_keyidx, "UNIQ1");
    return m;
}

}  // namespace

TEST_CASE(
    "broker timers: a TIMER_DELAY_SEC message is invisible until its time, then in its topic and queue") {
    TimerEnv e;
    auto m = timer_message();
    m.set_delay_time_sec(10);
    const auto due = e.clock->wall_millis() + 10000;
    const auto r = e.send(m);
    CHECK(r.status == rmq::SendStatus::SendOk);
    CHECK(e.visible() == 0);
    REQUIRE(e.waiting() == 1);
    const auto parked = e.broker.messages("rmq_sys_wheel_timer", 0)[0];
    CHECK(parked.property(rmq::property::timer_out_ms) == std::to_string(due));
    CHECK(parked.property(rmq::property::real_topic) == "T");
    CHECK(parked.property(rmq::property::real_queue_id) == "1");
    CHECK(e.broker.scheduled_count() == 1);

    e.clock->advance(rmq::Millis(9999));
    CHECK(e.visible() == 0);
    e.clock->advance(rmq::Millis(1));
    REQUIRE(e.visible() == 1);
    const auto delivered = e.broker.messages("T", 1)[0];
    CHECK(delivered.body() == "timed");
    CHECK(delivered.tags() == "TagA");
    CHECK(delivered.msg_id() == "UNIQ1");
    CHECK(delivered.property(rmq::property::timer_out_ms) == std::to_string(due));
    CHECK(e.broker.scheduled_count() == 0);
}

TEST_CASE("broker timers: TIMER_DELIVER_MS and TIMER_DELAY_MS") {
    TimerEnv e;
    auto at = timer_message();
    at.set_deliver_time_ms(e.clock->wall_millis() + 2500);
    auto after = timer_message();
    after.set_delay_time_ms(1500);
    e.send(at);
    e.send(after);
    CHECK(e.waiting() == 2);
    e.clock->advance(rmq::Millis(1499));
    CHECK(e.visible() == 0);
    e.clock->advance(rmq::Millis(1));
    CHECK(e.visible() == 1);
    e.clock->advance(rmq::Millis(999));
    CHECK(e.visible() == 1);
    e.clock->advance(rmq::Millis(1));
    CHECK(e.visible() == 2);
}

TEST_CASE("broker timers: a time already past is delivered at once") {
    TimerEnv e;
    auto m = timer_message();
    m.set_deliver_time_ms(e.clock->wall_millis() - 1);
    e.send(m);
    CHECK(e.visible() == 1);
    CHECK(e.waiting() == 0);
}

TEST_CASE("broker timers: a delay beyond timer_max_delay_sec is refused with TimerRejected, nothing stored") {
    TimerEnv e(rmq::BrokerConfig{.timer_max_delay_sec = 60});
    auto ok = timer_message();
    ok.set_delay_time_sec(60);
    e.send(ok);
    CHECK(e.waiting() == 1);
    auto too_far = timer_message();
    too_far.set_delay_time_sec(61);
    try {
        e.send(too_far);
        FAIL("expected TimerRejected");
    } catch (const rmq::TimerRejected& err) {
        CHECK(err.code() == rmq::response_code::message_illegal);
        CHECK(std::string(err.what()).find("max delay 60000ms") != std::string::npos);
    }
    auto at = timer_message();
    at.set_deliver_time_ms(e.clock->wall_millis() + 60001);
    CHECK_THROWS_AS(e.send(at), rmq::TimerRejected);
    CHECK(e.waiting() == 1);
    CHECK(e.visible() == 0);

    TimerEnv d;  // the default limit: 3 days
    auto days = timer_message();
    days.set_delay_time_sec(3 * 24 * 3600 + 1);
    CHECK_THROWS_AS(d.send(days), rmq::TimerRejected);
}

TEST_CASE("broker timers: a disabled timer wheel or a malformed value is refused") {
    TimerEnv off(rmq::BrokerConfig{.timer_wheel_enable = false});
    auto m = timer_message();
    m.set_delay_time_sec(1);
    CHECK_THROWS_AS(off.send(m), rmq::TimerRejected);
    CHECK(off.visible() == 0);

    TimerEnv e;
    auto bad = timer_message();
    bad.set_property(rmq::property::timer_delay_ms, "soon");
    CHECK_THROWS_AS(e.send(bad), rmq::TimerRejected);
    CHECK(e.visible() + e.waiting() == 0);
}

TEST_CASE("broker timers: a delay level wins over timer properties, which are dropped") {
    TimerEnv e;
    auto m = timer_message();
    m.set_delay_time_sec(100);
    m.set_delay_time_level(1);  // 1 s
    e.send(m);
    CHECK(e.waiting() == 0);
    REQUIRE(e.broker.messages("SCHEDULE_TOPIC_XXXX", 0).size() == 1);
    CHECK_FALSE(e.broker.messages("SCHEDULE_TOPIC_XXXX", 0)[0].has_property(rmq::property::timer_delay_sec));
    e.clock->advance(rmq::Millis(1000));
    CHECK(e.visible() == 1);
}
