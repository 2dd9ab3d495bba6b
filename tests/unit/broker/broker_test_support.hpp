#pragma once

// Helpers shared by the embedded broker's tests: a manual-clock broker fixture and a pull-result catcher.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>
#include <rmq/transport/in_process.hpp>

namespace broker_test {

/// Collects one pull completion; wait() blocks (generously) until it arrived.
class PullCatcher {
public:
    rmq::PullCallback callback() {
        return [s = state_](rmq::Outcome<rmq::PullResult> r) {
            const std::lock_guard lock(s->mutex);
            s->result.emplace(std::move(r));
            s->cv.notify_all();
        };
    }

    [[nodiscard]] bool done() const {
        const std::lock_guard lock(state_->mutex);
        return state_->result.has_value();
    }

    rmq::Outcome<rmq::PullResult> wait() const {
        auto r = wait_raw();
        REQUIRE(r.has_value());
        return *r;
    }

    /// wait() without Catch2 assertions (which are not thread-safe): nullopt when nothing came.
    std::optional<rmq::Outcome<rmq::PullResult>> wait_raw() const {
        std::unique_lock lock(state_->mutex);
        state_->cv.wait_for(lock, std::chrono::seconds(60), [&] { return state_->result.has_value(); });
        return state_->result;
    }

private:
    struct State {
        std::mutex mutex;
        std::condition_variable cv;
        std::optional<rmq::Outcome<rmq::PullResult>> result;
    };

    std::shared_ptr<State> state_ = std::make_shared<State>();
};

/// A broker on a manual clock with topic "TopicTest" (4 queues) and one transport.
struct Fixture {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    std::unique_ptr<rmq::InProcessBroker> broker;
    std::optional<rmq::InProcessTransport> transport;

    explicit Fixture(rmq::BrokerConfig config = {}) {
        config.clock = clock;
        broker = std::make_unique<rmq::InProcessBroker>(std::move(config));
        transport.emplace(broker->connect());
        broker->create_topic("TopicTest", 4);
    }

    rmq::MessageQueue mq(std::int32_t id, std::string topic = "TopicTest") const {
        return rmq::MessageQueue{std::move(topic), "broker-a", id};
    }

    rmq::SendResult
    send(std::int32_t queue, std::string tags, std::string body = "body", std::string topic = "TopicTest") {
        return transport->send(rmq::Message(topic, tags, "", std::move(body)), mq(queue, topic));
    }

    /// Registers `client` in `group` subscribing `topic` with `expression`.
    void subscribe(const std::string& group,
                   const std::string& client,
                   const std::string& topic,
                   const std::string& expression,
                   std::int64_t sub_version = 1) {
        rmq::HeartbeatData hb;
        hb.client_id = client;
        rmq::ConsumerData cd;
        cd.group_name = group;
        auto sub = rmq::parse_subscription(topic, expression);
        sub.sub_version = sub_version;
        cd.subscription_data_set.push_back(sub);
        hb.consumer_data_set.push_back(cd);
        transport->heartbeat(hb);
    }

    rmq::PullArgs args(std::int32_t queue,
                       std::int64_t offset,
                       std::int32_t sys_flag = 0,
                       const std::string& group = "G") const {
        rmq::PullArgs a;
        a.consumer_group = group;
        a.mq = mq(queue);
        a.queue_offset = offset;
        a.sys_flag = sys_flag;
        return a;
    }

    /// A pull answered without holding (no SUSPEND flag), waited for.
    rmq::Outcome<rmq::PullResult> pull(const rmq::PullArgs& a) {
        PullCatcher c;
        transport->pull(a, c.callback());
        return c.wait();
    }
};

}  // namespace broker_test
