#pragma once

/// @file order/concurrently.hpp
/// rmq::Concurrently: Java's ConsumeMessageConcurrentlyService (docs/policies/order.md). Batches of a queue
/// run in parallel on the consume pool; the committed offset follows ProcessQueue's min-offset rule.

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
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
#include <rmq/process_queue.hpp>
#include <rmq/protocol.hpp>

namespace rmq {

/// Order policy for concurrent consumption: no ordering within a queue, failed messages go back to the broker
/// (`%RETRY%group`, then `%DLQ%group`) in clustering and are dropped in broadcasting.
struct Concurrently {
    using Context = ConsumeConcurrentlyContext;
    using Status = ConsumeConcurrentlyStatus;
    using Listener = std::function<std::optional<Status>(std::span<const MessageExt>, Context&)>;

    static constexpr std::string_view listener_signature =
        "(std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) -> "
        "rmq::ConsumeConcurrentlyStatus";
    static constexpr bool requires_queue_lock = false;
    static constexpr bool span_flow_control = true;
    static constexpr bool unlimited_retries_by_default = false;
    /// An exception or nullopt from the listener: the whole batch failed.
    static constexpr Status failure_status = Status::ReconsumeLater;

    static constexpr bool is_success(Status status) noexcept { return status == Status::ConsumeSuccess; }

    /// Delay before messages whose send-back failed are consumed again locally (Java: 5000 ms).
    static constexpr std::int64_t local_retry_delay_millis = 5000;
    /// Period of the consume-timeout sweep: a message is sent back within this long after its deadline.
    static constexpr std::int64_t expiry_sweep_period_millis = 1000;

    /// The dispatcher the Consumer instantiates; Host is rmq::OrderHost<Concurrently> (order/host.hpp).
    template <class Host>
    class Service {
    public:
        explicit Service(Host& host)
            : host_(host) {}

        /// Starts the consume-timeout sweep (Java's cleanExpireMsg, with a 1 s granularity instead of
        /// consumeTimeout minutes, so a message is sent back close to its own deadline).
        void start() { schedule_sweep(); }

        /// A pull found messages: cache them and hand them out in batches (loop thread).
        /// The cache and the consume requests share the pulled vector (no copy); each request is a range of
        /// it.
        void on_pulled(const MessageQueue& mq,
                       const std::shared_ptr<ProcessQueue>& pq,
                       std::vector<MessageExt> msgs) {
            dispatch(mq, pq, std::move(msgs), std::nullopt);
        }

        /// Same for messages not stamped yet: each request stamps MIN_OFFSET / MAX_OFFSET on its messages
        /// when it starts (Java stamps them in processPullResult; no listener can see the difference, and
        /// the loop thread, the consumer's bottleneck, is spared two property writes per message).
        void on_pulled(const MessageQueue& mq,
                       const std::shared_ptr<ProcessQueue>& pq,
                       std::vector<MessageExt> msgs,
                       PullOffsets bounds) {
            dispatch(mq, pq, std::move(msgs), bounds);
        }

        /// Concurrent queues are released at once (no broker lock).
        bool release_queue(const MessageQueue& /*mq*/, ProcessQueue& /*pq*/) { return true; }

        void stop() {}

        /// The loop and the consume threads have stopped: nothing else touches the retired vectors now.
        void after_drain() { free_retired(); }

    private:
        /// Java's ConsumeRequest: messages [begin, end) of a pulled (or locally retried) vector.
        struct Request {
            std::shared_ptr<std::vector<MessageExt>> msgs;
            std::size_t begin = 0;
            std::size_t end = 0;
            std::optional<PullOffsets> unstamped;  // the bounds still to stamp on the messages, if any

            [[nodiscard]] std::span<MessageExt> span() const noexcept {
                return std::span<MessageExt>(*msgs).subspan(begin, end - begin);
            }
        };

        void dispatch(const MessageQueue& mq,
                      const std::shared_ptr<ProcessQueue>& pq,
                      std::vector<MessageExt> msgs,
                      std::optional<PullOffsets> unstamped) {
            free_retired();
            auto pulled = std::make_shared<std::vector<MessageExt>>(std::move(msgs));
            (void)pq->put_messages_shared(
                pulled, unstamped ? std::optional<std::int64_t>(unstamped->max_offset) : std::nullopt);
            const auto batch =
                static_cast<std::size_t>(std::max(1, host_.config().consume_message_batch_max_size));
            for (std::size_t i = 0; i < pulled->size(); i += batch) {
                submit(mq, pq, Request{pulled, i, std::min(pulled->size(), i + batch), unstamped});
            }
        }

        void submit(const MessageQueue& mq, std::shared_ptr<ProcessQueue> pq, Request request) {
            host_.submit([this, mq, pq = std::move(pq), request = std::move(request)]() mutable {
                consume(mq, pq, request);
                if (frees_on_loop_) {
                    retire(std::move(request.msgs));
                }
            });
        }

        /// A consume thread is done with a pulled vector: the loop thread frees it (free_retired).
        void retire(std::shared_ptr<std::vector<MessageExt>> msgs) {
            const std::lock_guard lock(retired_mutex_);
            retired_.push_back(std::move(msgs));
        }

        /// Loop thread: drops the vectors consume threads are done with (the last reference usually).
        void free_retired() {
            {
                const std::lock_guard lock(retired_mutex_);
                retired_.swap(freeing_);
            }
            freeing_.clear();  // keeps its capacity: the next swap gives the consume threads room again
        }

        void schedule_sweep() {
            host_.schedule(expiry_sweep_period_millis, [this] {
                free_retired();
                sweep();
                schedule_sweep();
            });
        }

        /// Sends back messages whose listener call passed consume_timeout (sent back like a failure: the
        /// running call's eventual result then finds them gone and only moves the offset).
        void sweep() {
            const std::int64_t timeout = host_.config().consume_timeout * 60 * 1000;
            for (const auto& [mq, pq] : host_.owned_queues()) {
                if (pq->dropped() || !host_.clustering()) {
                    continue;
                }
                const MessageQueue queue = mq;
                pq->clean_expired_msg(
                    timeout,
                    [this](const MessageExt& msg) { return host_.send_back(msg, 3); },
                    [this, queue](const MessageExt& msg, const std::exception_ptr& /*error*/) {
                        host_.log("group [{}]: expired message {} of {} could not be sent back",
                                  host_.group(),
                                  msg.msg_id(),
                                  queue);
                    });
            }
        }

        /// Java's ConsumeRequest.run; runs on a consume thread.
        void
        consume(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq, const Request& request) {
            if (pq->dropped()) {
                return;
            }
            Context ctx(mq);
            const std::span<MessageExt> msgs = request.span();
            // Shared with the cache: changed under its lock only.
            pq->begin_consume(
                msgs, host_.clock()->wall_millis(), [this, &request](std::span<MessageExt> batch) {
                    if (request.unstamped) {
                        request.unstamped->stamp(batch);
                    }
                    host_.reset_retry_topic(batch);
                });
            const auto call = *host_.call_listener(mq, msgs, ctx);
            if (pq->dropped()) {
                host_.record_consume_rt(mq.topic, call.rt_millis);
                return;  // the queue moved on (rebalance or shutdown): no send-back, no offset change
            }
            process_result(mq, pq, msgs, ctx, call.status, call.rt_millis);
        }

        /// Java's processConsumeResult: messages after the ack index failed; in clustering they are sent back
        /// (or, when that fails, consumed again here after 5 s); the offset moves to the smallest still
        /// cached.
        void process_result(const MessageQueue& mq,
                            const std::shared_ptr<ProcessQueue>& pq,
                            std::span<const MessageExt> msgs,
                            const Context& ctx,
                            Status status,
                            std::int64_t rt) {
            if (msgs.empty()) {
                host_.record_consume_rt(mq.topic, rt);
                return;
            }
            const int size = static_cast<int>(msgs.size());
            int ack = -1;
            if (status == Status::ConsumeSuccess) {
                ack = std::clamp(ctx.ack_index(), -1, size - 1);
            }
            host_.record_consume(mq.topic, rt, ack + 1, size - ack - 1);
            std::vector<MessageExt> back_failed;
            if (!host_.clustering()) {
                for (int i = ack + 1; i < size; ++i) {
                    host_.log("group [{}]: broadcasting, message {} of {} failed and is dropped",
                              host_.group(),
                              msgs[static_cast<std::size_t>(i)].msg_id(),
                              mq);
                }
            } else {
                for (int i = ack + 1; i < size; ++i) {
                    const auto& msg = msgs[static_cast<std::size_t>(i)];
                    if (!pq->contains_message(msg.queue_offset())) {
                        continue;  // already sent back by the expiry sweep (5.x check)
                    }
                    if (!host_.send_back(msg, ctx.delay_level_when_next_consume())) {
                        // A copy: the pulled vector is shared with the cache and must not change here.
                        back_failed.push_back(msg);
                        back_failed.back().set_reconsume_times(msg.reconsume_times() + 1);
                    }
                }
            }
            std::vector<std::int64_t> done;
            done.reserve(msgs.size());
            for (const auto& msg : msgs) {
                const bool failed =
                    std::any_of(back_failed.begin(), back_failed.end(), [&](const MessageExt& f) {
                        return f.queue_offset() == msg.queue_offset();
                    });
                if (!failed) {
                    done.push_back(msg.queue_offset());
                }
            }
            if (!back_failed.empty()) {
                auto retry = std::make_shared<std::vector<MessageExt>>(std::move(back_failed));
                const std::size_t count = retry->size();
                host_.schedule(local_retry_delay_millis, [this, mq, pq, retry, count] {
                    submit(mq, pq, Request{retry, 0, count, std::nullopt});
                });
            }
            const std::int64_t offset = pq->remove_messages(done);
            if (offset >= 0 && !pq->dropped()) {
                host_.update_offset(mq, offset, true);
            }
        }

        Host& host_;
        // Memory is best freed by the thread that allocated it. When pulls complete on the loop thread (both
        // stock transports: the TCP one decodes its answers there), the loop allocated the messages: freed on
        // a consume thread, each of their blocks took the allocator lock of the loop's arena while the loop
        // kept allocating the next pulls, the largest cause of context switches once the pull path had none.
        // A transport that completes pulls on its own threads leaves the freeing to the consume thread.
        const bool frees_on_loop_ = host_.pulls_complete_on_loop();
        std::mutex retired_mutex_;
        std::vector<std::shared_ptr<std::vector<MessageExt>>> retired_;  // guarded by retired_mutex_
        std::vector<std::shared_ptr<std::vector<MessageExt>>>
            freeing_;  // loop thread (then the shutdown thread)
    };
};

}  // namespace rmq
