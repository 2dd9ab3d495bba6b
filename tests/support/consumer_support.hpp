#pragma once

// Helpers of the consumer tests: the shared consumer fixture with this area's timeouts, a fast broker
// configuration, a producer shortcut over the embedded broker's transport and a fault-injecting transport.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <consumer_fixture.hpp>
#include <forwarding_transport.hpp>

#include <rmq/consumer.hpp>
#include <rmq/offset_store/local_file.hpp>
#include <rmq/offset_store/memory.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/transport/in_process.hpp>

namespace consumer_test {

/// Single-consumer tests wait up to a minute and give shutdown ten seconds to drain.
inline rmq::ConsumerConfig fast_config(std::string group) {
    return consumer_fixture::fast_config(std::move(group), 10000);
}

/// A broker whose delay levels are all one second, so retries come back quickly.
inline rmq::BrokerConfig fast_broker_config() {
    rmq::BrokerConfig b;
    b.message_delay_level = "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s";
    return b;
}

using Recorder = consumer_fixture::BasicRecorder<60>;

/// The consumer most tests use: concurrent, averagely allocated, offsets on the (embedded) broker.
using PushConsumer =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

template <class P>
bool eventually(P&& pred, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    return consumer_fixture::eventually(std::forward<P>(pred), timeout);
}

template <class C>
bool pull_loops_ran(C& consumer, const std::string& topic, int rounds) {
    return consumer_fixture::pull_loops_ran(consumer, topic, rounds, std::chrono::seconds(60));
}

/// Sends `count` messages "<prefix><i>" round-robin over `queues` queues of `topic` with the given tag.
inline void produce(rmq::InProcessBroker& broker,
                    const std::string& topic,
                    int queues,
                    int count,
                    const std::string& prefix = "m",
                    const std::string& tag = "TagA") {
    auto tr = broker.connect();
    for (int i = 0; i < count; ++i) {
        rmq::Message msg(topic, tag, prefix + std::to_string(i));
        (void)tr.send(msg, broker.queue(topic, i % queues));
    }
}

/// A RemoteOffsetStore counting the consumer's periodic persists in `*Count`: time that passed through the
/// consumer's own timers, for tests whose clock stands still.
template <std::atomic<int>* Count>
struct PersistCountingStore : rmq::RemoteOffsetStore {
    void persist_all(std::span<const rmq::MessageQueue> mqs) {
        rmq::RemoteOffsetStore::persist_all(mqs);
        ++*Count;
    }
};

/// The consumer's figures of one owned queue, if it owns it.
template <class C>
std::optional<rmq::QueueStats> queue_stats(C& consumer, const rmq::MessageQueue& mq) {
    for (const auto& q : consumer.stats().queues) {
        if (q.mq == mq) {
            return q;
        }
    }
    return std::nullopt;
}

}  // namespace consumer_test

namespace consumer_test {

/// Switches a FaultyTransport flips (shared by copies of the transport).
struct Faults {
    std::atomic<bool> fail_send_back{false};
    std::atomic<bool> fail_send{false};
    std::atomic<int> send_back_calls{0};
    std::atomic<int> send_calls{0};
};

/// InProcessTransport with injectable failures of CONSUMER_SEND_MSG_BACK and SEND_MESSAGE.
class FaultyTransport : public rmq_test::ForwardingTransport {
public:
    FaultyTransport(rmq::InProcessTransport inner, std::shared_ptr<Faults> faults)
        : ForwardingTransport(std::move(inner))
        , faults_(std::move(faults)) {}

    rmq::SendResult send(const rmq::Message& msg, const rmq::MessageQueue& mq) {
        ++faults_->send_calls;
        if (faults_->fail_send.load()) {
            throw rmq::BrokerError(rmq::response_code::system_error, "injected send failure");
        }
        return inner_.send(msg, mq);
    }

    void send_back(const rmq::SendBackArgs& args) {
        ++faults_->send_back_calls;
        if (faults_->fail_send_back.load()) {
            throw rmq::BrokerError(rmq::response_code::system_error, "injected send-back failure");
        }
        inner_.send_back(args);
    }

private:
    std::shared_ptr<Faults> faults_;
};

}  // namespace consumer_test
