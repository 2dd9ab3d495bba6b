#pragma once

/// @file order/orderly.hpp
/// rmq::Orderly: Java's ConsumeMessageOrderlyService (docs/policies/order.md). One consume task per queue at
/// a time, batches in queue order, broker locks in clustering, local retries with a DLQ bound.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/consume_context.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/order/host.hpp>
#include <rmq/order/orderly_common.hpp>
#include <rmq/process_queue.hpp>

namespace rmq {

/// Order policy for orderly consumption: the messages of one queue reach the listener strictly in queue
/// order, one batch at a time, and only on the member holding the queue's broker lock (clustering).
struct Orderly {
    using Context = ConsumeOrderlyContext;
    using Status = ConsumeOrderlyStatus;
    using Listener = std::function<std::optional<Status>(std::span<const MessageExt>, Context&)>;

    static constexpr std::string_view listener_signature =
        "(std::span<const rmq::MessageExt>, rmq::ConsumeOrderlyContext&) -> rmq::ConsumeOrderlyStatus";
    static constexpr bool requires_queue_lock = true;
    static constexpr bool span_flow_control = false;
    static constexpr bool unlimited_retries_by_default = true;
    /// An exception or nullopt from the listener: retry the batch after the suspend time.
    static constexpr Status failure_status = Status::SuspendCurrentQueueAMoment;

    static constexpr bool is_success(Status status) noexcept {
        return status == Status::Success || status == Status::Commit;
    }

    /// MAX_TIME_CONSUME_CONTINUOUSLY: one task yields the thread after this long (fairness between queues).
    static constexpr std::int64_t max_time_consume_continuously = 60000;
    /// Bounds of a suspend pause (ms).
    static constexpr std::int64_t min_suspend_millis = 10;
    static constexpr std::int64_t max_suspend_millis = 30000;
    /// How long rebalance waits for a running listener before giving up on releasing a queue (4.9.8: 1000
    /// ms).
    static constexpr std::int64_t release_wait_millis = 1000;

    /// The dispatcher the Consumer instantiates; Host is rmq::OrderHost<Orderly> (order/host.hpp).
    template <class Host>
    class Service {
    public:
        explicit Service(Host& host)
            : host_(host) {}

        /// Clustering: renew every owned queue's broker lock each lock_renewal_interval (first after 1 s).
        void start() {
            if (host_.clustering()) {
                orderly::schedule_lock_all(
                    host_, stopped_, std::min<std::int64_t>(1000, host_.config().lock_renewal_interval));
            }
        }

        /// A pull found messages (loop thread): cache them; start a consume task on the idle → busy
        /// transition.
        void on_pulled(const MessageQueue& mq,
                       const std::shared_ptr<ProcessQueue>& pq,
                       std::vector<MessageExt> msgs) {
            if (pq->put_messages(std::move(msgs))) {
                submit_request(mq, pq);
            }
        }

        /// removeUnnecessaryMessageQueue's orderly part (loop thread): wait up to 1 s for a running listener,
        /// then release the broker lock. False (retried at the next rebalance) while a listener holds the
        /// queue.
        bool release_queue(const MessageQueue& mq, ProcessQueue& pq) {
            if (!host_.clustering()) {
                return true;
            }
            // Held while the broker lock is released, so no listener of the queue starts meanwhile.
            if (!pq.try_lock_consume_for(std::chrono::milliseconds(release_wait_millis))) {
                return false;
            }
            const std::unique_lock lock(pq.consume_lock(), std::adopt_lock);
            host_.unlock_queues({mq});
            pq.set_locked(false);
            return true;
        }

        void stop() { stopped_.store(true); }

        /// Shutdown, after the listeners drained: release every broker lock (Java's unlockAll(false)).
        void after_drain() {
            if (host_.clustering()) {
                host_.unlock_all();
            }
        }

    private:
        void submit_request(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq) {
            host_.submit([this, mq, pq] { consume(mq, pq); });
        }

        /// submitConsumeRequestLater: -1 means the consumer's suspend time; clamped to [10, 30000] ms.
        void
        submit_later(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq, std::int64_t millis) {
            millis = orderly::suspend_millis(host_, millis, min_suspend_millis, max_suspend_millis);
            host_.schedule(millis, [this, mq, pq] { submit_request(mq, pq); });
        }

        /// tryLockLaterAndReconsume: relock from the loop, then re-dispatch soon (10 ms) or later (3 s).
        void
        try_lock_later(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq, std::int64_t delay) {
            host_.schedule(delay, [this, mq, pq] {
                const bool ok = !stopped_.load() && host_.lock_queue(mq);
                submit_later(mq, pq, ok ? 10 : 3000);
            });
        }

        std::shared_ptr<std::mutex> queue_lock(const MessageQueue& mq) {
            const std::lock_guard lock(locks_mutex_);
            auto& slot = queue_locks_[mq];
            if (!slot) {
                slot = std::make_shared<std::mutex>();
            }
            return slot;
        }

        /// Java's ConsumeRequest.run; runs on a consume thread.
        void consume(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq) {
            if (pq->dropped()) {
                return;
            }
            const auto mq_lock = queue_lock(mq);
            const std::lock_guard serial(*mq_lock);  // Java's MessageQueueLock: one task per queue at a time
            const bool clustering = host_.clustering();
            if (clustering && (!pq->locked() || pq->is_lock_expired())) {
                if (!pq->dropped()) {
                    try_lock_later(mq, pq, 100);
                }
                return;
            }
            const auto& clock = host_.clock();
            const std::int64_t begin = clock->steady_millis();
            const auto batch =
                static_cast<std::size_t>(std::max(1, host_.config().consume_message_batch_max_size));
            bool continue_consume = true;
            while (continue_consume) {
                // Shutdown lets the running batch finish but starts no new one: the rest stays uncommitted
                // and is redelivered (a bounded drain, not "empty the cache").
                if (pq->dropped() || host_.stopping()) {
                    break;
                }
                if (clustering && (!pq->locked() || pq->is_lock_expired())) {
                    try_lock_later(mq, pq, 10);
                    break;
                }
                if (clock->steady_millis() - begin > max_time_consume_continuously) {
                    submit_later(mq, pq, 10);
                    break;
                }
                std::vector<MessageExt> msgs = pq->take_messages(batch);
                if (msgs.empty()) {
                    break;  // take_messages turned consuming() off: the next pull dispatches again
                }
                host_.reset_retry_topic(std::span<MessageExt>(msgs));
                Context ctx(mq);
                // Under the queue's consume lock, so that rebalance cannot release the queue meanwhile.
                const auto call = host_.call_listener(mq, msgs, ctx, [&pq] {
                    std::unique_lock consume_lock(pq->consume_lock());
                    if (pq->dropped()) {
                        consume_lock.unlock();
                    }
                    return consume_lock;
                });
                if (!call) {
                    break;
                }
                host_.record_consume_rt(mq.topic, call->rt_millis);
                continue_consume = process_result(mq, pq, msgs, ctx, call->status);
            }
        }

        /// Java's processConsumeResult: every status × autoCommit (the table in docs/policies/order.md).
        bool process_result(const MessageQueue& mq,
                            const std::shared_ptr<ProcessQueue>& pq,
                            std::vector<MessageExt>& msgs,
                            const Context& ctx,
                            Status status) {
            std::int64_t commit_offset = -1;
            bool continue_consume = true;
            const auto n = static_cast<std::int64_t>(msgs.size());
            const auto suspend = [&] {
                host_.record_consume_failed(mq.topic, n);
                if (orderly::check_reconsume_times(host_, msgs)) {
                    pq->make_message_to_consume_again(std::span<const MessageExt>(msgs));
                    submit_later(mq, pq, ctx.suspend_current_queue_time_millis());
                    continue_consume = false;
                    return true;
                }
                return false;
            };
            if (ctx.auto_commit()) {
                switch (status) {
                case Status::Commit:
                case Status::Rollback:
                    host_.log(
                        "group [{}]: {} returns Commit/Rollback with auto-commit on; treated as Success",
                        host_.group(),
                        mq);
                    [[fallthrough]];
                case Status::Success:
                    commit_offset = pq->commit();
                    host_.record_consume_ok(mq.topic, n);
                    break;
                case Status::SuspendCurrentQueueAMoment:
                    if (!suspend()) {
                        commit_offset = pq->commit();  // every message went to the DLQ
                    }
                    break;
                }
            } else {
                switch (status) {
                case Status::Success:
                    host_.record_consume_ok(mq.topic, n);
                    break;
                case Status::Commit:
                    commit_offset = pq->commit();
                    break;
                case Status::Rollback:
                    pq->rollback();
                    submit_later(mq, pq, ctx.suspend_current_queue_time_millis());
                    continue_consume = false;
                    break;
                case Status::SuspendCurrentQueueAMoment:
                    (void)suspend();
                    break;
                }
            }
            if (commit_offset >= 0 && !pq->dropped()) {
                host_.update_offset(mq, commit_offset, false);
            }
            return continue_consume;
        }

        Host& host_;
        std::atomic<bool> stopped_{false};
        std::mutex locks_mutex_;
        std::map<MessageQueue, std::shared_ptr<std::mutex>> queue_locks_;
    };
};

}  // namespace rmq
