#pragma once

/// @file detail/consumer/consumption.hpp
/// rmq::detail::Consumption: the consumer's side of a listener call, the same for every order policy:
/// preparing the messages, the hooks, the listener and its timing (consume), and what a policy's verdict does
/// to the cache, the offsets (through the OffsetCommitter) and the broker (settle, ack, the orderly
/// take/commit family); also the consume-timeout sweep and the freeing of pulled messages on the loop that
/// allocated them.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/order/consume_queue.hpp>
#include <rmq/order/host.hpp>
#include <rmq/order/message_batch.hpp>
#include <rmq/protocol.hpp>
#include <rmq/trace.hpp>

#include <rmq/detail/consumer/offset_committer.hpp>
#include <rmq/detail/consumer/send_back.hpp>
#include <rmq/detail/consumer/state.hpp>

namespace rmq::detail {

template <class T>
class Consumption {
public:
    using Order = typename T::Order;
    using Context = typename Order::Context;
    using Status = typename Order::Status;
    using Service = typename T::Service;

    Consumption(ConsumerState<T>& state, OffsetCommitter<T>& committer, SendBack<T>& sender, Service& service)
        : s_(state)
        , committer_(committer)
        , sender_(sender)
        , service_(service) {}

    /// One listener call (OrderHost::consume); `unstamped`: the pull's bounds when not stamped yet.
    std::optional<ListenerCall<Status>> consume(const ConsumeQueue& q,
                                                std::span<MessageExt> msgs,
                                                Context& ctx,
                                                const std::optional<PullOffsets>& unstamped);
    /// Messages that came through %RETRY%group show their original topic.
    void reset_retry_topic(std::span<MessageExt> msgs) const;
    void settle(const ConsumeQueue& q, MessageBatch batch, std::size_t acked, int delay_level);
    void ack(const ConsumeQueue& q, std::span<const std::int64_t> offsets);
    void record_outcome(std::string_view topic, std::int64_t ok, std::int64_t failed);
    void commit_taken(const ConsumeQueue& q);
    /// The loop's housekeeping for the data path: freeing retired messages, the expiry sweep.
    void start_timers();

private:
    std::optional<Status>
    invoke_listener(const MessageQueue& mq, std::span<const MessageExt> msgs, Context& ctx);
    [[nodiscard]] ConsumeReturnType return_type(const ListenerCall<Status>& call) const;
    template <class Hook>
    void run_hook(const Hook& hook,
                  const char* which,
                  const MessageQueue& mq,
                  std::span<const MessageExt> msgs) const;
    void retire(MessageBatch batch);
    void sweep_expired();

    /// Delay before messages whose send-back failed are consumed again locally (Java: 5000 ms).
    static constexpr std::int64_t local_retry_delay_millis = 5000;
    /// Period of the consume-timeout sweep: a message is sent back within this long after its deadline.
    static constexpr std::int64_t expiry_sweep_period_millis = 1000;

    ConsumerState<T>& s_;
    OffsetCommitter<T>& committer_;
    SendBack<T>& sender_;
    Service& service_;
};

}  // namespace rmq::detail

#include <rmq/detail/consumer/impl/consumption.hpp>
