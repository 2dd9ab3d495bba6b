#pragma once

/// @file detail/broker/pop_long_poll.hpp
/// POP long polling on the embedded broker (PopLongPollingService): a POP_MESSAGE that found nothing and has
/// a poll time is held per (topic, group, queue id; -1 for any queue of the topic) until a message it matches
/// arrives, its poll time ends, or its consumer interrupts it. The requesting thread waits on the broker's
/// lock; this table only decides which held pops wake (the broker then re-runs them, broker_state.hpp).

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/pop.hpp>
#include <rmq/subscription.hpp>

namespace rmq::detail {

/// Why a held pop was let go; shared by the table and the thread waiting for it.
enum class PopWake { Held, Arrived, TimedOut, Interrupted };

/// An asynchronous POP_MESSAGE (rmq::HasAsyncPop): what the broker re-runs when it wakes, and whom it
/// answers.
struct AsyncPop {
    PopArgs args;
    PopCompletion done;
};

/// A POP_MESSAGE parked until its topic has something for it.
struct HeldPop {
    std::string topic;
    std::string group;
    /// -1: any queue of the topic (and the group's pop retry topic).
    std::int32_t queue_id = -1;
    /// The connection that sent it (InProcessTransport::interrupt_pops).
    std::uint64_t handle = 0;
    /// Clock steady time it is answered at the latest.
    std::int64_t deadline = 0;
    /// The subscription it filters with (arrivals that do not match do not wake it).
    std::optional<SubscriptionData> filter;
    std::shared_ptr<PopWake> wake = std::make_shared<PopWake>(PopWake::Held);
    /// Set for an asynchronous pop: no thread waits for it, the broker re-runs it when it wakes.
    std::shared_ptr<AsyncPop> async;
};

class HeldPops {
public:
    /// Parks `pop`; false (POLLING_FULL) when `max_total` pops are held already (maxPopPollingSize) or its
    /// key holds more than `max_per_key` (popPollingSize).
    bool hold(HeldPop pop, std::int64_t max_total, std::int64_t max_per_key);

    /// notifyMessageArriving: for each group polling `topic`, the first pop held on this queue and the first
    /// held on any queue that a message with `tags_code` matches (a message of a group's pop retry topic
    /// wakes the group's any-queue pops). True when one woke.
    bool wake_arrived(const std::string& topic, std::int32_t queue_id, std::int64_t tags_code);

    /// The first pop of `group` held on queue `queue_id` of `topic` and the first held on any queue, whatever
    /// their filters (an orderly queue's block ended). True when one woke.
    bool wake_queue(const std::string& topic, const std::string& group, std::int32_t queue_id);

    /// The pops past their deadline at steady time `now`. True when one woke.
    bool wake_due(std::int64_t now);

    /// The pops of `group` (every group when empty) sent through connection `handle` (every one when 0).
    bool wake_interrupted(std::uint64_t handle, const std::string& group);

    [[nodiscard]] std::size_t count() const noexcept { return total_; }

    /// The asynchronous pops woken since the last call (no thread waits for them: the broker re-runs them).
    [[nodiscard]] std::vector<HeldPop> take_woken_async() { return std::exchange(woken_async_, {}); }

    /// The earliest deadline while pops are held.
    [[nodiscard]] std::optional<std::int64_t> next_deadline() const;

private:
    using Key = std::tuple<std::string, std::string, std::int32_t>;

    /// Wakes the first pop of `list` that `tags_code` matches (every filter when nullopt).
    bool wake_first(std::vector<HeldPop>& list, std::optional<std::int64_t> tags_code);
    void erase_empty();
    /// `p` was let go for `why`.
    void let_go(const HeldPop& p, PopWake why);

    std::map<Key, std::vector<HeldPop>> held_;
    std::size_t total_ = 0;
    std::vector<HeldPop> woken_async_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/pop_long_poll.ipp>
#endif
