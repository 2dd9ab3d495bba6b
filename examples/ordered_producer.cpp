// Seed 001's OrderedProducer on the embedded broker: 100 messages, tags TagA..TagE, keys "KEY"+i; every
// message of one order id (i % 10) goes to the same queue (order id % queue count), so a consumer sees each
// order in sending order.

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

std::string_view status_name(rmq::SendStatus s) {
    switch (s) {
    case rmq::SendStatus::SendOk:
        return "SEND_OK";
    case rmq::SendStatus::FlushDiskTimeout:
        return "FLUSH_DISK_TIMEOUT";
    case rmq::SendStatus::FlushSlaveTimeout:
        return "FLUSH_SLAVE_TIMEOUT";
    default:
        return "SLAVE_NOT_AVAILABLE";
    }
}

}  // namespace

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("TopicTest", 8);

    rmq::Producer<rmq::InProcessTransport> producer(
        broker.connect(), rmq::ProducerConfig{.producer_group = "example_group_name"});
    producer.start();

    constexpr std::array<std::string_view, 5> tags{"TagA", "TagB", "TagC", "TagD", "TagE"};
    // Java's MessageQueueSelector: the same order id always picks the same queue.
    auto by_order_id = [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int order_id) {
        return mqs[static_cast<std::size_t>(order_id) % mqs.size()];
    };
    for (int i = 0; i < 100; ++i) {
        const int order_id = i % 10;
        rmq::Message msg("TopicTest",
                         tags[static_cast<std::size_t>(i) % tags.size()],
                         fmt::format("KEY{}", i),
                         fmt::format("Hello RocketMQ {}", i));
        const rmq::SendResult r = producer.send(msg, by_order_id, order_id);
        fmt::print("SendResult [sendStatus={}, msgId={}, offsetMsgId={}, messageQueue={}, queueOffset={}]\n",
                   status_name(r.status),
                   r.msg_id,
                   r.offset_msg_id,
                   r.message_queue,
                   r.queue_offset);
    }
    producer.shutdown();
    return 0;
}
