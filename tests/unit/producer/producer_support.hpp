#pragma once

// Transports shared by the producer's tests.

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <forwarding_transport.hpp>

#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace producer_test {

/// The embedded broker's topic seen as two brokers: "broker-a" queues 0-1 are the embedded queues 0-1,
/// "broker-b" queues 0-1 are embedded queues 2-3. Sends to a broker named in `failing` throw `code`
/// while `failures_left` lasts; every attempt is recorded.
class TwoBrokers : public rmq_test::ForwardingTransport {
public:
    struct Shared {
        std::string failing;
        int code = rmq::response_code::system_error;
        int failures_left = 0;
        std::vector<rmq::MessageQueue> attempts;
        /// Guards the fields while asynchronous sends run.
        std::mutex mutex;
    };

    TwoBrokers(rmq::InProcessTransport inner, std::shared_ptr<Shared> shared)
        : ForwardingTransport(std::move(inner))
        , shared_(std::move(shared)) {}

    rmq::TopicRoute topic_route(const std::string& topic) {
        auto route = inner_.topic_route(topic);
        for (auto* qs : {&route.read_queues, &route.write_queues}) {
            for (auto& q : *qs) {
                if (q.queue_id >= 2) {
                    q = rmq::MessageQueue{q.topic, "broker-b", q.queue_id - 2};
                }
            }
        }
        return route;
    }

    rmq::SendResult send(const rmq::Message& msg, const rmq::MessageQueue& mq) {
        const auto inner = attempt(mq);
        auto r = inner_.send(msg, inner);
        r.message_queue = mq;
        return r;
    }

    rmq::SendResult send_batch(std::span<const rmq::Message> msgs, const rmq::MessageQueue& mq) {
        const auto inner = attempt(mq);
        auto r = inner_.send_batch(msgs, inner);
        r.message_queue = mq;
        return r;
    }

private:
    /// Records the attempt, fails it while failures are left, else names the embedded queue.
    rmq::MessageQueue attempt(const rmq::MessageQueue& mq) {
        const std::lock_guard lock(shared_->mutex);
        shared_->attempts.push_back(mq);
        if ((shared_->failing == "*" || mq.broker_name == shared_->failing) && shared_->failures_left > 0) {
            --shared_->failures_left;
            throw rmq::BrokerError(shared_->code, "injected send failure");
        }
        const int id = mq.broker_name == "broker-b" ? mq.queue_id + 2 : mq.queue_id;
        return rmq::MessageQueue{mq.topic, "broker-a", id};
    }

    std::shared_ptr<Shared> shared_;
};

static_assert(rmq::Transport<TwoBrokers>);
static_assert(rmq::HasSendBatch<TwoBrokers>);

}  // namespace producer_test
