#pragma once

/// @file detail/consumer/puller.hpp
/// rmq::detail::Puller: the pull loops (Java's PullMessageService + pullMessage + PullCallback), on the
/// event loop: one small state per owned queue, not a thread. A pull is held by the broker up to
/// broker_suspend_max_time_millis (long polling); its answer comes back to the loop by one path whatever the
/// transport; what it finds is tag-filtered, cached and handed to the order policy, and the next pull
/// follows at once unless flow control, suspension or an error asks for a delay.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/subscription.hpp>

#include <rmq/detail/consumer/offset_committer.hpp>
#include <rmq/detail/consumer/state.hpp>

namespace rmq::detail {

template <class T>
class Rebalancer;

template <class T>
class Puller {
public:
    using Service = typename T::Service;

    Puller(ConsumerState<T>& state,
           OffsetCommitter<T>& committer,
           Rebalancer<T>& rebalancer,
           Service& service)
        : s_(state)
        , committer_(committer)
        , rebalancer_(rebalancer)
        , service_(service) {}

    /// Starts the pull loop of a queue just taken on, from `next_offset`. `kept_offset` / `kept_at`: what
    /// this member had consumed it up to when it dropped it (-1: nothing), for the first pull under a queue
    /// lock.
    void start(const MessageQueue& mq,
               std::shared_ptr<ProcessQueue> pq,
               std::int64_t next_offset,
               std::int64_t kept_offset,
               std::int64_t kept_at);

private:
    struct PullState {
        MessageQueue mq;
        std::shared_ptr<ProcessQueue> pq;
        std::int64_t next_offset = 0;
        bool previously_locked = false;
        // A queue taken back under the broker lock: what it was consumed up to when dropped (offset, steady
        // ms when kept; -1: none), a floor for the first pull's offset re-read (see ready_after_lock).
        std::int64_t kept_offset = -1;
        std::int64_t kept_at = 0;
        // Loop only: a pull of this queue is being handed to the transport (its answer may come inside).
        bool sending = false;
    };

    using Ptr = std::shared_ptr<PullState>;

    void pull_later(const Ptr& st, std::int64_t delay);
    void pull(const Ptr& st);
    [[nodiscard]] bool flow_controlled(const ProcessQueue& pq) const;
    [[nodiscard]] bool ready_after_lock(PullState& st);
    [[nodiscard]] PullArgs pull_args(const PullState& st, const SubscriptionData& sd) const;
    void send_pull(const Ptr& st, const PullArgs& args);
    static void complete(Puller* self,
                         const std::shared_ptr<LifeGate>& gate,
                         const Ptr& st,
                         std::int64_t begin,
                         Outcome<PullResult> outcome);
    void on_pull_result(const Ptr& st, std::int64_t begin, Outcome<PullResult> outcome);
    void on_pull_failed(const Ptr& st, int code, const std::string& remark);
    void on_found(const Ptr& st, std::int64_t begin, PullResult& result);
    void prepare_found(const MessageQueue& mq, std::vector<MessageExt>& msgs) const;
    void on_offset_illegal(const Ptr& st, const PullResult& result);

    ConsumerState<T>& s_;
    OffsetCommitter<T>& committer_;
    Rebalancer<T>& rebalancer_;  // back to the rebalance when a pull loses its queue (an illegal offset)
    Service& service_;
};

}  // namespace rmq::detail

#include <rmq/detail/consumer/impl/puller.hpp>
