// Batch sends (Java's SimpleBatchProducer / SplitBatchProducer samples) on the embedded broker: a batch is
// one SEND_BATCH_MESSAGE of messages of one topic, stored together in one queue; a batch above
// max_message_size (4 MiB, encoded) is refused with rmq::MessageTooLarge, so a large list is split first.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("BatchTest", 4);
    rmq::Producer<rmq::InProcessTransport> producer(
        broker.connect(), rmq::ProducerConfig{.producer_group = "BatchProducerGroupName"});
    producer.start();

    const std::vector<rmq::Message> small{rmq::Message("BatchTest", "TagA", "OrderID001", "Hello world 0"),
                                          rmq::Message("BatchTest", "TagA", "OrderID002", "Hello world 1"),
                                          rmq::Message("BatchTest", "TagA", "OrderID003", "Hello world 2")};
    const auto r = producer.send(small);
    fmt::print("batch of {} stored in queue {} from offset {}\n",
               small.size(),
               r.message_queue.queue_id,
               r.queue_offset);

    // 100 messages of 100 kB: about 10 MB, over the limit as one batch; split into batches of 30.
    std::vector<rmq::Message> large;
    for (int i = 0; i < 100; ++i) {
        large.emplace_back("BatchTest", "TagB", fmt::format("K{}", i), std::string(100 * 1000, 'x'));
    }
    bool refused = false;
    try {
        (void)producer.send(large);
    } catch (const rmq::MessageTooLarge& e) {
        refused = true;
        fmt::print("whole list refused: {} bytes > {}\n", e.size(), e.limit());
    }
    std::size_t batches = 0;
    const std::span<const rmq::Message> all(large);
    for (std::size_t i = 0; i < all.size(); i += 30) {
        (void)producer.send(all.subspan(i, std::min<std::size_t>(30, all.size() - i)));
        ++batches;
    }
    producer.shutdown();

    std::int64_t stored = 0;
    for (int q = 0; q < 4; ++q) {
        stored += broker.max_offset(broker.queue("BatchTest", q));
    }
    fmt::print("{} batches sent, {} messages stored\n", batches + 1, stored);
    return refused && stored == 103 ? 0 : 1;
}
