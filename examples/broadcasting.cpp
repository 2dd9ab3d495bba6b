// BROADCASTING consumption: every member of the group consumes every message, and
// each member keeps its own progress in a local offset file, `<store_dir>/<client_id>/<group>/offsets.json`.
// Two members consume 20 messages each; then one restarts and consumes only the 10 sent while it was down.
//
// The offset files go to a temporary directory here. Without `store_dir` they would go to
// $RMQ_OFFSET_STORE_DIR or ~/.rocketmq_offsets, as Java's rocketmq.client.localOffsetStoreDir.

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <system_error>

#include <unistd.h>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/offset_store/local_file.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

/// What one member received, shared with its listener.
struct Inbox {
    std::mutex mutex;
    std::condition_variable cv;
    std::multiset<std::string> bodies;

    bool wait_for(std::size_t n) {
        std::unique_lock lock(mutex);
        return cv.wait_for(lock, std::chrono::seconds(10), [&] { return bodies.size() >= n; });
    }
};

/// A broadcasting member: `instance_name` keeps members of one process apart (their client ids, and so their
/// offset files, differ), exactly as in Java.
std::unique_ptr<rmq::BroadcastConsumer<>> start_member(rmq::InProcessBroker& broker,
                                                       const std::string& instance_name,
                                                       const std::filesystem::path& store_dir,
                                                       Inbox& inbox) {
    rmq::ConsumerConfig config{.consumer_group = "broadcast_group",
                               .message_model = rmq::MessageModel::Broadcasting,
                               .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    config.instance_name = instance_name;
    config.persist_consumer_offset_interval = 1000;
    rmq::LocalFileOffsetStore store;
    store.store_dir = store_dir.string();
    auto consumer = std::make_unique<rmq::BroadcastConsumer<>>(broker.connect(), config, std::move(store));
    consumer->subscribe("BroadcastTopic", "*");
    consumer->register_listener(
        [&inbox](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
            {
                const std::lock_guard lock(inbox.mutex);
                for (const auto& msg : msgs) {
                    inbox.bodies.insert(msg.body());
                }
            }
            inbox.cv.notify_all();
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    consumer->start();
    return consumer;
}

void produce(rmq::InProcessBroker& broker, int from, int to) {
    rmq::Producer<rmq::InProcessTransport> producer(
        broker.connect(), rmq::ProducerConfig{.producer_group = "broadcast_producer"});
    producer.start();
    for (int i = from; i < to; ++i) {
        (void)producer.send(rmq::Message("BroadcastTopic", "TagA", fmt::format("message {}", i)));
    }
    producer.shutdown();
}

}  // namespace

int main() {
    const auto store_dir =
        std::filesystem::temp_directory_path() / fmt::format("rmq-broadcasting-example-{}", ::getpid());
    rmq::InProcessBroker broker;
    broker.create_topic("BroadcastTopic", 4);
    produce(broker, 0, 20);

    // Run 1: two members, each gets all 20 messages.
    Inbox first;
    Inbox second;
    std::string offsets_file;
    bool all_received = false;
    {
        auto m1 = start_member(broker, "member-1", store_dir, first);
        auto m2 = start_member(broker, "member-2", store_dir, second);
        all_received = first.wait_for(20) && second.wait_for(20);
        offsets_file = m1->offset_store().file_path().string();
        m1->shutdown();  // persists the offsets to member-1's file
        m2->shutdown();
    }
    fmt::print("run 1: member-1 received {}, member-2 received {} of 20 messages\n",
               first.bodies.size(),
               second.bodies.size());
    fmt::print("member-1 keeps its offsets in {}\n", offsets_file);

    // While member-1 is down, 10 more messages arrive; on restart it resumes from its file.
    produce(broker, 20, 30);
    Inbox again;
    bool resumed = false;
    {
        auto m1 = start_member(broker, "member-1", store_dir, again);
        resumed = again.wait_for(10);
        m1->shutdown();
    }
    int repeated = 0;
    for (const auto& body : again.bodies) {
        repeated += first.bodies.contains(body) ? 1 : 0;
    }
    fmt::print("run 2: member-1 restarted and received {} messages ({} already consumed in run 1)\n",
               again.bodies.size(),
               repeated);

    std::error_code ec;
    std::filesystem::remove_all(store_dir, ec);

    const bool ok = all_received && first.bodies.size() == 20 && second.bodies.size() == 20 && resumed &&
                    again.bodies.size() == 10 && repeated == 0;
    if (!ok) {
        fmt::print("FAILED: broadcasting did not deliver every message to every member, or the restart did "
                   "not resume from the offset file\n");
        return 1;
    }
    fmt::print("every member got all 20 messages; the restarted member resumed from its offset file "
               "(10 new, 0 repeated)\n");
    return 0;
}
