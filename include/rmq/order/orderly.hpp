#pragma once

/// @file order/orderly.hpp
/// rmq::Orderly: Java's ConsumeMessageOrderlyService (docs/policies/order.md). One consume task per queue at
/// a time, batches in queue order, local retries with a DLQ bound; the host takes, renews and releases the
/// broker locks (clustering).

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

    /// The dispatcher the Consumer instantiates; Host is rmq::OrderHost<Orderly> (order/host.hpp).
    template <class Host>
    class Service {
    public:
        explicit Service(Host& host)
            : host_(host) {}

        /// Cached messages (event loop): a consume task starts on the queue's idle → busy transition.
        void on_messages(const ConsumeQueue& q, const MessageBatch& msgs) {
            if (msgs.dispatch_to_consume()) {
                submit_request(q);
            }
        }

        /// The queue is gone: forget its serialising lock.
        bool on_queue_removed(const ConsumeQueue& q) {
            const std::lock_guard lock(locks_mutex_);
            queue_locks_.erase(q.mq());
            return true;
        }

    private:
        void submit_request(const ConsumeQueue& q) {
            host_.submit([this, q] { consume(q); });
        }

        /// submitConsumeRequestLater: -1 means the consumer's suspend time; clamped to [10, 30000] ms.
        void submit_later(const ConsumeQueue& q, std::int64_t millis) {
            millis = orderly::suspend_millis(host_, millis, min_suspend_millis, max_suspend_millis);
            host_.schedule(millis, [this, q] { submit_request(q); });
        }

        /// tryLockLaterAndReconsume: relock from the loop, then re-dispatch soon (10 ms) or later (3 s).
        void try_lock_later(const ConsumeQueue& q, std::int64_t delay) {
            host_.schedule(delay, [this, q] {
                const bool ok = !host_.stopping() && host_.lock_queue(q);
                submit_later(q, ok ? 10 : 3000);
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
        void consume(const ConsumeQueue& q) {
            if (q.dropped()) {
                return;
            }
            const auto mq_lock = queue_lock(q.mq());
            const std::lock_guard serial(*mq_lock);  // Java's MessageQueueLock: one task per queue at a time
            const bool clustering = host_.clustering();
            if (clustering && !q.locked()) {
                if (!q.dropped()) {
                    try_lock_later(q, 100);
                }
                return;
            }
            const auto& clock = host_.clock();
            const std::int64_t begin = clock->coarse_steady_millis();
            const auto batch =
                static_cast<std::size_t>(std::max(1, host_.config().consume_message_batch_max_size));
            bool continue_consume = true;
            while (continue_consume) {
                // Shutdown lets the running batch finish but starts no new one: the rest stays uncommitted
                // and is redelivered (a bounded drain, not "empty the cache").
                if (q.dropped() || host_.stopping()) {
                    break;
                }
                if (clustering && !q.locked()) {
                    try_lock_later(q, 10);
                    break;
                }
                if (clock->coarse_steady_millis() - begin > max_time_consume_continuously) {
                    submit_later(q, 10);
                    break;
                }
                std::vector<MessageExt> msgs = host_.take(q, batch);
                if (msgs.empty()) {
                    break;  // take turned the dispatch off: the next pull dispatches again
                }
                Context ctx(q.mq());
                const auto call = host_.consume(q, std::span<MessageExt>(msgs), ctx);
                if (!call) {
                    break;
                }
                continue_consume = process_result(q, msgs, ctx, call->status);
            }
        }

        /// Java's processConsumeResult: every status × autoCommit (the table in docs/policies/order.md).
        bool process_result(const ConsumeQueue& q,
                            std::vector<MessageExt>& msgs,
                            const Context& ctx,
                            Status status) {
            const MessageQueue& mq = q.mq();
            bool commit = false;
            bool continue_consume = true;
            const auto n = static_cast<std::int64_t>(msgs.size());
            const auto suspend = [&] {
                host_.record_outcome(mq.topic, 0, n);
                if (orderly::check_reconsume_times(host_, msgs)) {
                    host_.consume_again(q, std::span<const MessageExt>(msgs));
                    submit_later(q, ctx.suspend_current_queue_time_millis());
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
                    commit = true;
                    host_.record_outcome(mq.topic, n, 0);
                    break;
                case Status::SuspendCurrentQueueAMoment:
                    commit = !suspend();  // every message went to the DLQ
                    break;
                }
            } else {
                switch (status) {
                case Status::Success:
                    host_.record_outcome(mq.topic, n, 0);
                    break;
                case Status::Commit:
                    commit = true;
                    break;
                case Status::Rollback:
                    host_.rollback_taken(q);
                    submit_later(q, ctx.suspend_current_queue_time_millis());
                    continue_consume = false;
                    break;
                case Status::SuspendCurrentQueueAMoment:
                    (void)suspend();
                    break;
                }
            }
            if (commit) {
                host_.commit_taken(q);
            }
            return continue_consume;
        }

        Host& host_;
        std::mutex locks_mutex_;
        std::map<MessageQueue, std::shared_ptr<std::mutex>> queue_locks_;
    };
};

}  // namespace rmq
