// A lite pull consumer (Java's DefaultLitePullConsumer): the application asks for messages with poll()
// instead of registering a listener, commits when it has handled them, and may rewind a queue with seek().
// 30 messages are polled and committed in batches; one queue is replayed from its start; a second consumer
// of the group then continues from the committed offsets and sees only the 10 messages sent afterwards.

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <rmq/lite_pull_consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

void produce(rmq::InProcessBroker& broker, int from, int to) {
    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "lite_producer"});
    producer.start();
    for (int i = from; i < to; ++i) {
        (void)producer.send(rmq::Message("LiteTopic", "TagA", fmt::format("message {}", i)));
    }
    producer.shutdown();
}

/// Polls until `n` messages came or ten seconds passed.
std::vector<rmq::MessageExt> poll_n(rmq::LitePullConsumer<>& consumer, std::size_t n) {
    std::vector<rmq::MessageExt> out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (out.size() < n && std::chrono::steady_clock::now() < deadline) {
        for (auto& msg : consumer.poll(std::chrono::milliseconds(100))) {
            out.push_back(std::move(msg));
        }
    }
    return out;
}

}  // namespace

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("LiteTopic", 4);
    produce(broker, 0, 30);

    // auto_commit off: offsets move only when commit_sync() says the messages were handled.
    const rmq::LitePullConfig config{.consumer_group = "lite_group",
                                     .consume_from_where = rmq::ConsumeFromWhere::FirstOffset,
                                     .auto_commit = false};
    std::size_t first_run = 0;
    std::size_t replayed = 0;
    {
        rmq::LitePullConsumer<> consumer{broker.connect(), config};
        consumer.subscribe("LiteTopic");
        consumer.start();
        first_run = poll_n(consumer, 30).size();
        consumer.commit_sync();
        // Replay one queue from its first offset: what was pulled of it and not polled is dropped.
        const rmq::MessageQueue queue0 = broker.queue("LiteTopic", 0);
        consumer.seek_to_begin(queue0);
        replayed = poll_n(consumer, 8).size();  // queue 0 holds messages 0, 4, ..., 28
        consumer.commit_sync();
        consumer.shutdown();
    }
    fmt::print("run 1: polled {} messages, replayed {} of queue 0, committed\n", first_run, replayed);

    produce(broker, 30, 40);
    std::size_t second_run = 0;
    {
        rmq::LitePullConsumer<> consumer{broker.connect(), config};
        consumer.subscribe("LiteTopic");
        consumer.start();
        second_run = poll_n(consumer, 10).size();
        second_run += consumer.poll(std::chrono::milliseconds(500)).size();  // nothing more may come
        consumer.shutdown();
    }
    fmt::print("run 2: a new consumer of the group polled {} messages\n", second_run);

    if (first_run != 30 || replayed != 8 || second_run != 10) {
        fmt::print("FAILED: expected 30 polled, 8 replayed, then 10 new\n");
        return 1;
    }
    fmt::print(
        "polled 30, replayed 8 after seek_to_begin, and a new consumer continued with the 10 new ones\n");
    return 0;
}
