#pragma once

// Helpers of the consumer tests: fast configurations, a thread-safe recorder with condition-variable waits,
// and a producer shortcut over the embedded broker's transport.

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
#include <string>
#include <vector>

#include <rmq/consumer.hpp>
#include <rmq/offset_store/local_file.hpp>
#include <rmq/offset_store/memory.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/transport/in_process.hpp>

namespace consumer_test {

/// A configuration with every interval shortened so rebalance, locks and retries happen in milliseconds.
inline rmq::ConsumerConfig fast_config(std::string group) {
    rmq::ConsumerConfig c;
    c.consumer_group = std::move(group);
    c.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    c.consume_thread_min = 4;
    c.consume_thread_max = 4;
    c.rebalance_interval = 100;
    c.lock_renewal_interval = 100;
    c.persist_consumer_offset_interval = 100;
    c.heartbeat_broker_interval = 200;
    c.broker_suspend_max_time_millis = 200;
    c.consumer_timeout_millis_when_suspend = 3000;
    c.pull_time_delay_mills_when_exception = 50;
    c.pull_time_delay_mills_when_suspend = 50;
    c.suspend_current_queue_time_millis = 10;
    c.await_termination_millis_when_shutdown = 10000;
    return c;
}

/// A broker whose delay levels are all one second, so retries come back quickly.
inline rmq::BrokerConfig fast_broker_config() {
    rmq::BrokerConfig b;
    b.message_delay_level = "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s";
    return b;
}

/// Shared state between listener threads and the test thread.
class Recorder {
public:
    /// Runs `fn` under the lock and wakes waiters.
    template <class F>
    void update(F&& fn) {
        {
            const std::lock_guard lock(mutex_);
            fn();
        }
        cv_.notify_all();
    }

    /// Waits (generously) until `pred()` holds under the lock; false on timeout.
    template <class P>
    bool wait(P&& pred, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, timeout, std::forward<P>(pred));
    }

    /// Runs `fn` under the lock and returns its result.
    template <class F>
    auto read(F&& fn) {
        const std::lock_guard lock(mutex_);
        return fn();
    }

    /// Wakes waiters whose predicate depends on state outside the recorder.
    void poke() { cv_.notify_all(); }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
};

/// Polls `pred` every 5 ms for up to `timeout` (for state that lives in the broker).
template <class P>
bool eventually(P&& pred, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (pred()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return pred();
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
class FaultyTransport {
public:
    FaultyTransport(rmq::InProcessTransport inner, std::shared_ptr<Faults> faults)
        : inner_(std::move(inner))
        , faults_(std::move(faults)) {}

    rmq::TopicRoute topic_route(const std::string& topic) { return inner_.topic_route(topic); }

    void heartbeat(const rmq::HeartbeatData& hb) { inner_.heartbeat(hb); }

    void unregister_client(const std::string& c, const std::string& p, const std::string& g) {
        inner_.unregister_client(c, p, g);
    }

    std::vector<std::string> consumer_id_list(const std::string& t, const std::string& g) {
        return inner_.consumer_id_list(t, g);
    }

    void set_notification_handler(rmq::NotificationHandler h) {
        inner_.set_notification_handler(std::move(h));
    }

    void pull(const rmq::PullArgs& a, rmq::PullCallback cb) { inner_.pull(a, std::move(cb)); }

    std::optional<std::int64_t> query_consumer_offset(const std::string& g, const rmq::MessageQueue& mq) {
        return inner_.query_consumer_offset(g, mq);
    }

    void update_consumer_offset(const std::string& g, const rmq::MessageQueue& mq, std::int64_t v) {
        inner_.update_consumer_offset(g, mq, v);
    }

    std::int64_t min_offset(const rmq::MessageQueue& mq) { return inner_.min_offset(mq); }

    std::int64_t max_offset(const rmq::MessageQueue& mq) { return inner_.max_offset(mq); }

    std::int64_t search_offset(const rmq::MessageQueue& mq, std::int64_t ts) {
        return inner_.search_offset(mq, ts);
    }

    std::vector<rmq::MessageQueue>
    lock_batch(const std::string& g, const std::string& c, const std::vector<rmq::MessageQueue>& mqs) {
        return inner_.lock_batch(g, c, mqs);
    }

    void unlock_batch(const std::string& g, const std::string& c, const std::vector<rmq::MessageQueue>& mqs) {
        inner_.unlock_batch(g, c, mqs);
    }

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

    [[nodiscard]] std::shared_ptr<rmq::Clock> clock() const { return inner_.clock(); }

private:
    rmq::InProcessTransport inner_;
    std::shared_ptr<Faults> faults_;
};

}  // namespace consumer_test
