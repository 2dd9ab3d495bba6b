// Message traces (Java's enableMsgTrace) on the embedded broker: a traced producer sends an order, a traced
// push consumer consumes it, and the trace topic then holds the Pub, SubBefore and SubAfter records that
// RocketMQ Dashboard shows for the message. On a real cluster the same two settings do it (docs/trace.md).

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <span>
#include <string>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/trace.hpp>
#include <rmq/transport/in_process.hpp>

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("TopicTest", 1);
    broker.create_topic(rmq::rmq_sys_trace_topic, 1);  // a real broker creates it (traceTopicEnable=true)

    rmq::ProducerConfig pc{.producer_group = "please_rename_unique_group_name"};
    pc.enable_msg_trace = true;
    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(), pc);
    producer.start();
    const auto sent = producer.send(rmq::Message("TopicTest", "TagA", "order-42", "Hello RocketMQ"));
    producer.shutdown();  // sends the trace records still queued

    rmq::ConsumerConfig cc;
    cc.consumer_group = "please_rename_unique_consumer_group";
    cc.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    cc.enable_msg_trace = true;
    rmq::PushConsumer<rmq::InProcessTransport> consumer(broker.connect(), cc);
    consumer.subscribe("TopicTest", "*");
    std::mutex mutex;
    std::condition_variable cv;
    bool consumed = false;
    consumer.register_listener([&](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        {
            const std::lock_guard lock(mutex);
            consumed = true;
        }
        cv.notify_all();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    {
        std::unique_lock lock(mutex);
        cv.wait_for(lock, std::chrono::seconds(30), [&] { return consumed; });
    }
    consumer.shutdown();  // sends the consumer's trace records

    int records = 0;
    for (const auto& m : broker.messages(rmq::rmq_sys_trace_topic, 0)) {
        for (const auto& r : rmq::decode_trace_data(m.body())) {
            const auto& bean = r.trace_beans.front();
            fmt::print("{:<9} group {} msgId {} keys {} cost {} ms {}\n",
                       rmq::trace_type_name(r.trace_type),
                       r.group_name.value_or(""),
                       bean.msg_id.value_or(""),
                       bean.keys.value_or(""),
                       r.cost_time,
                       r.is_success ? "success" : "failed");
            records += bean.msg_id == sent.msg_id ? 1 : 0;
        }
    }
    fmt::print("trace records of {}: {}\n", sent.msg_id, records);
    return records == 3 ? 0 : 1;
}
