// The send-back fallbacks of the concurrent path.

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::Faults;
using consumer_test::FaultyTransport;
using consumer_test::produce;
using consumer_test::Recorder;

namespace {

using FaultyConsumer =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::RemoteOffsetStore, FaultyTransport>;

}  // namespace

TEST_CASE("a failed send-back falls back to sending a retry copy to %RETRY%group", "[consumer][send_back]") {
    rmq::InProcessBroker broker{consumer_test::fast_broker_config()};
    broker.create_topic("Fallback", 1);
    produce(broker, "Fallback", 1, 1);
    auto faults = std::make_shared<Faults>();
    faults->fail_send_back = true;

    Recorder rec;
    std::vector<std::pair<std::string, int>> seen;  // topic, reconsume times
    FaultyConsumer consumer{FaultyTransport(broker.connect(), faults), fast_config("sb_fallback")};
    consumer.subscribe("Fallback", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        std::size_t n = 0;
        rec.update([&] {
            seen.emplace_back(msgs.front().topic(), msgs.front().reconsume_times());
            n = seen.size();
        });
        return n == 1 ? rmq::ConsumeConcurrentlyStatus::ReconsumeLater
                      : rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() >= 2; }));
    consumer.shutdown();
    CHECK(faults->send_back_calls.load() >= 1);
    CHECK(faults->send_calls.load() >= 1);
    // The retry copy shows the original topic to the listener and counts one reconsumption.
    const std::vector<std::pair<std::string, int>> expected{{"Fallback", 0}, {"Fallback", 1}};
    CHECK(rec.read([&] { return seen; }) == expected);
    CHECK(broker.consumer_offset("sb_fallback", broker.queue("Fallback", 0)).value_or(-1) == 1);
}

TEST_CASE("when both send-backs fail the message is consumed again locally and holds the offset",
          "[consumer][send_back]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Local", 1);
    produce(broker, "Local", 1, 1);
    auto faults = std::make_shared<Faults>();
    faults->fail_send_back = true;
    faults->fail_send = true;

    Recorder rec;
    std::vector<int> times;
    std::int64_t offset_during_retry = -2;
    FaultyConsumer consumer{FaultyTransport(broker.connect(), faults), fast_config("sb_local")};
    const auto mq = broker.queue("Local", 0);
    consumer.subscribe("Local", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        const auto off = consumer.offset_store().read_offset(mq, rmq::ReadOffsetType::ReadFromMemory);
        std::size_t n = 0;
        rec.update([&] {
            times.push_back(msgs.front().reconsume_times());
            n = times.size();
            if (n == 2) {
                offset_during_retry = off;
            }
        });
        return n == 1 ? rmq::ConsumeConcurrentlyStatus::ReconsumeLater
                      : rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return times.size() >= 2; }));
    REQUIRE(eventually([&] { return broker.consumer_offset("sb_local", mq).value_or(-1) == 1; }));
    consumer.shutdown();
    CHECK(rec.read([&] { return times; }) == std::vector<int>{0, 1});
    CHECK(rec.read([&] { return offset_during_retry; }) < 1);  // the failed message held the committed offset
    CHECK(broker.messages("%RETRY%sb_local", 0).empty());
}
