// Concurrent consumption with a partial acknowledgement: the listener gets batches of 5
// and, for the first batch, acknowledges only the first 3 (set_ack_index(2)). The other 2 are sent back to
// the broker and return through `%RETRY%<group>` after delay level 1 (1 s), with reconsume_times() == 1.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <span>
#include <string>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("AckTopic", 1);

    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "ack_producer"});
    producer.start();
    for (int i = 0; i < 10; ++i) {
        (void)producer.send(rmq::Message("AckTopic", "TagA", fmt::format("message {}", i)));
    }
    producer.shutdown();

    std::mutex mutex;
    std::condition_variable cv;
    std::set<std::string> done;  // bodies acknowledged
    int retried = 0;             // deliveries with reconsume_times() > 0
    bool first_batch = true;

    rmq::ConsumerConfig config{.consumer_group = "ack_group",
                               .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    config.consume_message_batch_max_size = 5;
    rmq::PushConsumer<rmq::InProcessTransport> consumer{broker.connect(), config};
    consumer.subscribe("AckTopic", "*");
    consumer.register_listener(
        [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext& ctx) {
            const std::lock_guard lock(mutex);
            int acked = static_cast<int>(msgs.size());
            if (first_batch && msgs.size() == 5) {
                first_batch = false;
                ctx.set_ack_index(2);                      // messages 0..2 succeeded, 3..4 are retried
                ctx.set_delay_level_when_next_consume(1);  // retry after delay level 1 (1 s)
                acked = 3;
            }
            for (int i = 0; i < static_cast<int>(msgs.size()); ++i) {
                const auto& msg = msgs[static_cast<std::size_t>(i)];
                fmt::print("{} (reconsume {}) {}\n",
                           msg.body(),
                           msg.reconsume_times(),
                           i < acked ? "ok" : "retry later");
                if (msg.reconsume_times() > 0) {
                    ++retried;
                }
                if (i < acked) {
                    done.insert(msg.body());
                }
            }
            cv.notify_all();
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    consumer.start();

    bool complete = false;
    {
        std::unique_lock lock(mutex);
        complete = cv.wait_for(lock, std::chrono::seconds(30), [&] { return done.size() == 10; });
    }
    consumer.shutdown();
    const std::lock_guard lock(mutex);
    if (!complete || retried != 2) {
        fmt::print(
            "FAILED: {} of 10 messages acknowledged, {} redelivered (expected 2)\n", done.size(), retried);
        return 1;
    }
    fmt::print("all 10 messages consumed; 2 came back through %RETRY%ack_group\n");
    return 0;
}
