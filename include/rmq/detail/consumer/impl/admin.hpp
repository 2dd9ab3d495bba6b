#pragma once

/// @file detail/consumer/impl/admin.hpp
/// ConsumerCore's answers to the admin tools (rmq::AdminHandler, registered with transports that model
/// rmq::HasAdminHandler): running info, offset reset, offset table, consume-directly.

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

#include <rmq/detail/consumer/core.hpp>

namespace rmq::detail {

/// The handlers hold this, never the consumer: shutdown clears `core` under the mutex, so a request still
/// running on a transport thread finishes before the consumer goes.
template <class Core>
struct AdminGate {
    std::mutex mutex;
    Core* core = nullptr;

    template <class Fn, class R = std::invoke_result_t<Fn, Core&>>
    R with(Fn&& fn, R fallback = R{}) {
        const std::lock_guard lock(mutex);
        return core != nullptr ? fn(*core) : std::move(fallback);
    }
};

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

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::open_admin() {
    if constexpr (HasAdminHandler<Tr>) {
        auto gate = std::make_shared<AdminGate<ConsumerCore>>();
        gate->core = this;
        admin_gate_ = gate;
        start_wall_millis_ = clock_->wall_millis();
        AdminHandler h;
        h.running_info = [gate] {
            return gate->with([](ConsumerCore& c) { return c.running_info(); });
        };
        h.reset_offset = [gate](const std::string& topic, QueueOffsets offsets) {
            gate->with([&](ConsumerCore& c) {
                c.gate_->post([&c, topic, offsets = std::move(offsets)] { c.reset_offsets(topic, offsets); });
                return 0;
            });
        };
        h.offset_table = [gate](const std::string& topic) {
            return gate->with([&](ConsumerCore& c) { return c.offset_table(topic); });
        };
        h.consume_directly = [gate](MessageExt msg,
                                    const std::string& broker_name,
                                    std::function<void(ConsumeDirectlyResult)> done) {
            // with() only queues the call: the gate's mutex is never held while a listener runs
            const bool queued = gate->with(
                [&](ConsumerCore& c) { return c.submit_consume_directly(std::move(msg), broker_name, done); },
                false);
            if (!queued) {
                done(directly_refused("the consumer is shutting down or its consume queue is full"));
            }
        };
        transport_.set_admin_handler(group_, std::move(h));
    }
}

template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::close_admin() {
    if constexpr (HasAdminHandler<Tr>) {
        transport_.set_admin_handler(group_, AdminHandler{});
        if (admin_gate_) {
            const std::lock_guard lock(admin_gate_->mutex);
            admin_gate_->core = nullptr;
        }
    }
}

/// Java's DefaultMQPushConsumerImpl.consumerRunningInfo: configuration, PROP_* entries, each owned queue's
/// ProcessQueueInfo and each topic's ConsumeStatus.
template <class Order, class Allocate, class OffsetStore, class Tr>
ConsumerRunningInfo ConsumerCore<Order, Allocate, OffsetStore, Tr>::running_info() const {
    ConsumerRunningInfo out;
    const auto& c = config_;
    out.properties = {
        {"consumerGroup", group_},
        {"messageModel", clustering_ ? "CLUSTERING" : "BROADCASTING"},
        {"consumeThreadMin", std::to_string(c.consume_thread_min)},
        {"consumeThreadMax", std::to_string(c.consume_thread_max)},
        {"consumeMessageBatchMaxSize", std::to_string(c.consume_message_batch_max_size)},
        {"pullBatchSize", std::to_string(c.pull_batch_size)},
        {"pullThresholdForQueue", std::to_string(pull_threshold_for_queue_.load())},
        {"pullThresholdSizeForQueue", std::to_string(pull_threshold_size_for_queue_.load())},
        {"maxReconsumeTimes", std::to_string(max_reconsume_times_)},
        {"PROP_CONSUMEORDERLY", Order::requires_queue_lock ? "true" : "false"},
        {"PROP_THREADPOOL_CORE_SIZE", std::to_string(c.consume_thread_min)},
        {"PROP_CONSUMER_START_TIMESTAMP", std::to_string(start_wall_millis_)},
    };
    // ProcessQueue timestamps are steady; Java shows wall-clock ones. Offsets come from memory only (Java:
    // memory first, then the store): this runs on the transport's io thread, where the store's broker query
    // cannot.
    const std::int64_t to_wall = clock_->wall_millis() - clock_->steady_millis();
    for (const auto& [mq, pq] : table_snapshot()) {
        RunningQueueInfo q{.mq = mq,
                           .commit_offset = offset_store_.read_offset(mq, ReadOffsetType::ReadFromMemory),
                           .info = pq->info()};
        for (auto* ts :
             {&q.info.last_lock_timestamp, &q.info.last_pull_timestamp, &q.info.last_consume_timestamp}) {
            *ts += to_wall;
        }
        out.queues.push_back(std::move(q));
    }
    // One ConsumeStatus per subscribed topic, zeros when nothing was seen yet (as Java).
    std::map<std::string, TopicStats> seen;
    for (auto& t : stats_.snapshot().topics) {
        seen.emplace(t.topic, std::move(t));
    }
    for (const auto& [topic, sd] : subscriptions_.copy()) {
        const auto it = seen.find(topic);
        out.topics.push_back(it != seen.end() ? it->second : TopicStats{.topic = topic});
    }
    return out;
}

/// Java's MQClientInstance.resetOffset, on the loop: the queues of `topic` with a new offset are dropped
/// (cached messages discarded; results of listeners still running are not committed, as for any dropped
/// queue), the offsets set and persisted, the queues removed; the rebalance takes them again from there.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::reset_offsets(const std::string& topic,
                                                                   const QueueOffsets& offsets) {
    if (stopping_.load()) {
        return;
    }
    const std::map<MessageQueue, std::int64_t> wanted(offsets.begin(), offsets.end());
    for (const auto& [mq, offset] : wanted) {
        dropped_offsets_.erase(mq);  // a queue taken back later starts from the reset, not from before it
    }
    std::vector<QueueEntry> affected;
    for (auto& [mq, pq] : table_snapshot()) {
        if (mq.topic == topic && wanted.contains(mq)) {
            pq->set_dropped(true);
            pq->clear();
            affected.emplace_back(mq, pq);
        }
    }
    for (const auto& [mq, pq] : affected) {
        offset_store_.update_offset(mq, wanted.at(mq), false);
        log_line(LogLevel::Info, "group [{}]: {} reset to offset {}", group_, mq, wanted.at(mq));
    }
    finish_reset(affected);
}

/// Removes the reset queues once their order policy lets them go (an orderly listener may still run),
/// then rebalances.
template <class Order, class Allocate, class OffsetStore, class Tr>
void ConsumerCore<Order, Allocate, OffsetStore, Tr>::finish_reset(const std::vector<QueueEntry>& pending) {
    std::vector<QueueEntry> left;
    for (const auto& [mq, pq] : pending) {
        if (remove_unnecessary_queue(mq, pq)) {
            const std::lock_guard lock(table_mutex_);
            if (const auto it = table_.find(mq); it != table_.end() && it->second == pq) {
                table_.erase(it);
            }
        } else {
            left.emplace_back(mq, pq);
        }
    }
    if (!left.empty()) {
        schedule(100, [this, left = std::move(left)] { finish_reset(left); });
        return;
    }
    do_rebalance();
}

/// Java's getConsumerStatus: the in-memory offsets of the owned queues of `topic`.
template <class Order, class Allocate, class OffsetStore, class Tr>
QueueOffsets ConsumerCore<Order, Allocate, OffsetStore, Tr>::offset_table(const std::string& topic) const {
    QueueOffsets out;
    for (const auto& [mq, pq] : table_snapshot()) {
        if (mq.topic == topic) {
            const std::int64_t v = offset_store_.read_offset(mq, ReadOffsetType::ReadFromMemory);
            if (v >= 0) {
                out.emplace_back(mq, v);
            }
        }
    }
    return out;
}

/// Java's consumeMessageDirectly: the listener sees a one-message batch from the message's queue; nothing
/// is committed, sent back or counted.
template <class Order, class Allocate, class OffsetStore, class Tr>
ConsumeDirectlyResult
ConsumerCore<Order, Allocate, OffsetStore, Tr>::consume_directly(MessageExt msg,
                                                                 const std::string& broker_name) {
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
        reset_retry_topic(batch);
        Context ctx(mq);
        const std::int64_t begin = clock_->wall_millis();
        try {
            const auto status = listener_(std::span<const MessageExt>(batch), ctx);
            out.status = status ? directly_status(*status) : ConsumeDirectlyStatus::ReturnNull;
        } catch (const std::exception& e) {
            out.status = ConsumeDirectlyStatus::ThrowException;
            out.remark = e.what();
        } catch (...) {
            out.status = ConsumeDirectlyStatus::ThrowException;
            out.remark = "unknown exception";
        }
        out.spent_time_millis = clock_->wall_millis() - begin;
        if constexpr (requires { ctx.auto_commit(); }) {
            out.auto_commit = ctx.auto_commit();
        }
        return out;
    }
}

/// CONSUME_MESSAGE_DIRECTLY on a consume thread, as any listener call (the transport's io thread only queues
/// it); false when the pool refuses it (closed or full).
template <class Order, class Allocate, class OffsetStore, class Tr>
bool ConsumerCore<Order, Allocate, OffsetStore, Tr>::submit_consume_directly(
    MessageExt msg, const std::string& broker_name, std::function<void(ConsumeDirectlyResult)> done) {
    if (stopping_.load() || !pool_) {
        return false;
    }
    auto reply = std::make_shared<DirectlyReply>(std::move(done));
    std::function<void()> task = [this, msg = std::move(msg), broker_name, reply]() mutable {
        (*reply)(consume_directly(std::move(msg), broker_name));
    };
    if (pool_->try_submit(std::move(task))) {
        return true;
    }
    reply->release();  // not queued: the caller answers, this reply must not
    return false;
}

/// CMResult of a listener status: the stock statuses map as in Java, others by Order::is_success.
template <class Order, class Allocate, class OffsetStore, class Tr>
ConsumeDirectlyStatus
ConsumerCore<Order, Allocate, OffsetStore, Tr>::directly_status(typename Order::Status s) {
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
