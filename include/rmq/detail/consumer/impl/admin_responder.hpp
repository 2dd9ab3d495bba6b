#pragma once

/// @file detail/consumer/impl/admin_responder.hpp
/// AdminResponder's definitions.

#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/admin.hpp>
#include <rmq/concepts/transport.hpp>

#include <rmq/detail/consumer/admin_responder.hpp>
#include <rmq/detail/consumer/rebalancer.hpp>

namespace rmq::detail {

inline ConsumeDirectlyResult directly_refused(std::string why) {
    ConsumeDirectlyResult r;
    r.status = ConsumeDirectlyStatus::ThrowException;
    r.remark = std::move(why);
    return r;
}

/// Calls `done` exactly once: with the result, or, when the task is discarded unrun (the pool closed at
/// shutdown), with a refusal.
class DirectlyReply {
public:
    explicit DirectlyReply(std::function<void(ConsumeDirectlyResult)> done)
        : done_(std::move(done)) {}

    DirectlyReply(const DirectlyReply&) = delete;
    DirectlyReply& operator=(const DirectlyReply&) = delete;

    ~DirectlyReply() {
        if (done_) {
            done_(directly_refused("the consumer shut down before the listener ran"));
        }
    }

    void operator()(ConsumeDirectlyResult r) { std::exchange(done_, nullptr)(std::move(r)); }

    /// Gives up answering (someone else does).
    void release() { done_ = nullptr; }

private:
    std::function<void(ConsumeDirectlyResult)> done_;
};

template <class T>
void AdminResponder<T>::open() {
    if constexpr (HasAdminHandler<typename T::Transport>) {
        auto gate = std::make_shared<AdminGate<AdminResponder>>();
        gate->target = this;
        admin_gate_ = gate;
        start_wall_millis_ = s_.clock->wall_millis();
        AdminHandler h;
        h.running_info = [gate] {
            return gate->with([](AdminResponder& c) { return c.running_info(); });
        };
        h.reset_offset = [gate](const std::string& topic, QueueOffsets offsets) {
            gate->with([&](AdminResponder& c) {
                c.s_.gate->post(
                    [&c, topic, offsets = std::move(offsets)] { c.reset_offsets(topic, offsets); });
                return 0;
            });
        };
        h.offset_table = [gate](const std::string& topic) {
            return gate->with([&](AdminResponder& c) { return c.offset_table(topic); });
        };
        h.consume_directly = [gate](MessageExt msg,
                                    const std::string& broker_name,
                                    std::function<void(ConsumeDirectlyResult)> done) {
            // with() only queues the call: the gate's mutex is never held while a listener runs
            const bool queued = gate->with(
                [&](AdminResponder& c) {
                    return c.submit_consume_directly(std::move(msg), broker_name, done);
                },
                false);
            if (!queued) {
                done(directly_refused("the consumer is shutting down or its consume queue is full"));
            }
        };
        s_.transport.set_admin_handler(s_.group, std::move(h));
    }
}

template <class T>
void AdminResponder<T>::close() {
    if constexpr (HasAdminHandler<typename T::Transport>) {
        s_.transport.set_admin_handler(s_.group, AdminHandler{});
        if (admin_gate_) {
            const std::lock_guard lock(admin_gate_->mutex);
            admin_gate_->target = nullptr;
        }
    }
}

/// Java's DefaultMQPushConsumerImpl.consumerRunningInfo: configuration, PROP_* entries, each owned queue's
/// ProcessQueueInfo and each topic's ConsumeStatus.
template <class T>
ConsumerRunningInfo AdminResponder<T>::running_info() const {
    ConsumerRunningInfo out;
    const auto& c = s_.config;
    out.properties = {
        {"consumerGroup", s_.group},
        {"messageModel", s_.clustering ? "CLUSTERING" : "BROADCASTING"},
        {"consumeThreadMin", std::to_string(c.consume_thread_min)},
        {"consumeThreadMax", std::to_string(c.consume_thread_max)},
        {"consumeMessageBatchMaxSize", std::to_string(c.consume_message_batch_max_size)},
        {"pullBatchSize", std::to_string(c.pull_batch_size)},
        {"pullThresholdForQueue", std::to_string(s_.pull_threshold_for_queue.load())},
        {"pullThresholdSizeForQueue", std::to_string(s_.pull_threshold_size_for_queue.load())},
        {"maxReconsumeTimes", std::to_string(s_.max_reconsume_times)},
        {"PROP_CONSUMEORDERLY", Order::requires_queue_lock ? "true" : "false"},
        {"PROP_THREADPOOL_CORE_SIZE", std::to_string(c.consume_thread_min)},
        {"PROP_CONSUMER_START_TIMESTAMP", std::to_string(start_wall_millis_)},
    };
    // ProcessQueue timestamps are steady; Java shows wall-clock ones. Offsets come from memory only (Java:
    // memory first, then the store): this runs on the transport's io thread, where the store's broker query
    // cannot.
    const std::int64_t to_wall = s_.clock->wall_millis() - s_.clock->steady_millis();
    for (const auto& [mq, pq] : s_.table_snapshot()) {
        RunningQueueInfo q{.mq = mq, .commit_offset = committer_.memory_offset(mq), .info = pq->info()};
        for (auto* ts :
             {&q.info.last_lock_timestamp, &q.info.last_pull_timestamp, &q.info.last_consume_timestamp}) {
            *ts += to_wall;
        }
        out.queues.push_back(std::move(q));
    }
    // One ConsumeStatus per subscribed topic, zeros when nothing was seen yet (as Java).
    std::map<std::string, TopicStats> seen;
    for (auto& t : s_.stats.snapshot().topics) {
        seen.emplace(t.topic, std::move(t));
    }
    for (const auto& [topic, sd] : s_.subscriptions.copy()) {
        const auto it = seen.find(topic);
        out.topics.push_back(it != seen.end() ? it->second : TopicStats{.topic = topic});
    }
    return out;
}

/// Java's MQClientInstance.resetOffset, on the loop: the queues of `topic` with a new offset are dropped
/// (cached messages discarded; results of listeners still running are not committed, as for any dropped
/// queue), the offsets set and persisted, the queues removed; the rebalance takes them again from there.
template <class T>
void AdminResponder<T>::reset_offsets(const std::string& topic, const QueueOffsets& offsets) {
    if (s_.stopping.load()) {
        return;
    }
    const std::map<MessageQueue, std::int64_t> wanted(offsets.begin(), offsets.end());
    for (const auto& [mq, offset] : wanted) {
        committer_.forget_kept(mq);  // a queue taken back later starts from the reset, not from before it
    }
    std::vector<QueueEntry> affected;
    for (auto& [mq, pq] : s_.table_snapshot()) {
        if (mq.topic == topic && wanted.contains(mq)) {
            pq->set_dropped(true);
            pq->clear();
            affected.emplace_back(mq, pq);
        }
    }
    for (const auto& [mq, pq] : affected) {
        committer_.reset(mq, wanted.at(mq));
        log_line(LogLevel::Info, "group [{}]: {} reset to offset {}", s_.group, mq, wanted.at(mq));
    }
    finish_reset(affected);
}

/// Removes the reset queues once their order policy lets them go (an orderly listener may still run),
/// then rebalances.
template <class T>
void AdminResponder<T>::finish_reset(const std::vector<QueueEntry>& pending) {
    std::vector<QueueEntry> left;
    for (const auto& [mq, pq] : pending) {
        if (!rebalancer_.remove_queue(mq, pq)) {
            left.emplace_back(mq, pq);
        }
    }
    if (!left.empty()) {
        s_.schedule(100, [this, left = std::move(left)] { finish_reset(left); });
        return;
    }
    rebalancer_.do_rebalance();
}

/// Java's getConsumerStatus: the in-memory offsets of the owned queues of `topic`.
template <class T>
QueueOffsets AdminResponder<T>::offset_table(const std::string& topic) const {
    QueueOffsets out;
    for (const auto& [mq, pq] : s_.table_snapshot()) {
        if (mq.topic == topic) {
            const std::int64_t v = committer_.memory_offset(mq);
            if (v >= 0) {
                out.emplace_back(mq, v);
            }
        }
    }
    return out;
}

/// Java's consumeMessageDirectly: the listener sees a one-message batch from the message's queue; nothing
/// is committed, sent back or counted.
template <class T>
ConsumeDirectlyResult AdminResponder<T>::consume_directly(MessageExt msg, const std::string& broker_name) {
    ConsumeDirectlyResult out;
    out.order = Order::requires_queue_lock;
    if constexpr (!std::is_constructible_v<Context, MessageQueue>) {
        out.status = ConsumeDirectlyStatus::ThrowException;
        out.remark = "the order policy's context cannot be built from a MessageQueue";
        return out;
    } else {
        if (!broker_name.empty()) {
            msg.set_broker_name(broker_name);
        }
        MessageQueue mq{msg.topic(), msg.broker_name(), msg.queue_id()};
        std::vector<MessageExt> batch;
        batch.push_back(std::move(msg));
        consumption_.reset_retry_topic(batch);
        Context ctx(mq);
        const std::int64_t begin = s_.clock->wall_millis();
        try {
            const auto status = s_.listener(std::span<const MessageExt>(batch), ctx);
            out.status = status ? directly_status(*status) : ConsumeDirectlyStatus::ReturnNull;
        } catch (const std::exception& e) {
            out.status = ConsumeDirectlyStatus::ThrowException;
            out.remark = e.what();
        } catch (...) {
            out.status = ConsumeDirectlyStatus::ThrowException;
            out.remark = "unknown exception";
        }
        out.spent_time_millis = s_.clock->wall_millis() - begin;
        if constexpr (requires { ctx.auto_commit(); }) {
            out.auto_commit = ctx.auto_commit();
        }
        return out;
    }
}

/// CONSUME_MESSAGE_DIRECTLY on a consume thread, as any listener call (the transport's io thread only queues
/// it); false when the pool refuses it (closed or full).
template <class T>
bool AdminResponder<T>::submit_consume_directly(MessageExt msg,
                                                const std::string& broker_name,
                                                std::function<void(ConsumeDirectlyResult)> done) {
    if (s_.stopping.load() || !s_.pool) {
        return false;
    }
    auto reply = std::make_shared<DirectlyReply>(std::move(done));
    std::function<void()> task = [this, msg = std::move(msg), broker_name, reply]() mutable {
        (*reply)(consume_directly(std::move(msg), broker_name));
    };
    if (s_.pool->try_submit(std::move(task))) {
        return true;
    }
    reply->release();  // not queued: the caller answers, this reply must not
    return false;
}

/// CMResult of a listener status: the stock statuses map as in Java, others by Order::is_success.
template <class T>
ConsumeDirectlyStatus AdminResponder<T>::directly_status(Status s) {
    if constexpr (std::is_same_v<Status, ConsumeOrderlyStatus>) {
        switch (s) {
        case ConsumeOrderlyStatus::Success:
            return ConsumeDirectlyStatus::Success;
        case ConsumeOrderlyStatus::Rollback:
            return ConsumeDirectlyStatus::Rollback;
        case ConsumeOrderlyStatus::Commit:
            return ConsumeDirectlyStatus::Commit;
        case ConsumeOrderlyStatus::SuspendCurrentQueueAMoment:
            return ConsumeDirectlyStatus::Later;
        }
    }
    return Order::is_success(s) ? ConsumeDirectlyStatus::Success : ConsumeDirectlyStatus::Later;
}

}  // namespace rmq::detail
