#pragma once

/// @file detail/pop_consumer/pop_consume.hpp
/// rmq::detail::PopConsume: Java's ConsumeMessagePopConcurrentlyService for rmq::Concurrently: one listener
/// call over popped messages (ConsumeRequest.run) and what its verdict does at the broker
/// (processConsumeResult): ACK_MESSAGE for the consumed messages, CHANGE_MESSAGE_INVISIBLETIME with a
/// popDelayLevel delay for the others, and at max reconsume times Java's checkNeedAckOrDelay. No offsets.
/// Acks stop for good when the consumer's shutdown stops waiting for listeners (close_acks).

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include <rmq/consume_context.hpp>
#include <rmq/message.hpp>

#include <rmq/detail/consumer/state.hpp>
#include <rmq/detail/pop_consumer/pop_queue.hpp>

namespace rmq::detail {

template <class T>
class PopConsume {
public:
    explicit PopConsume(ConsumerState<T>& state)
        : s_(state) {}

    /// Consume thread: one listener call over `msgs` (popped from `q`) and its verdict.
    void run(const std::shared_ptr<PopQueue>& q, std::vector<MessageExt> msgs);
    /// No ack or change of invisible time from now on (shutdown, once it stops waiting for listeners).
    void close_acks();

private:
    [[nodiscard]] bool pop_timed_out(const MessageExt& first) const;
    std::optional<ConsumeConcurrentlyStatus>
    call_listener(const MessageQueue& mq, std::span<const MessageExt> msgs, ConsumeConcurrentlyContext& ctx);
    void reset_retry_topic(std::span<MessageExt> msgs) const;
    void process_result(ConsumeConcurrentlyStatus status,
                        const ConsumeConcurrentlyContext& ctx,
                        std::span<const MessageExt> msgs,
                        const std::vector<std::string>& pop_topics);
    void ack(const MessageExt& msg, const std::string& pop_topic);
    void retry_later(const MessageExt& msg, const std::string& pop_topic, int delay_level);
    void give_up_or_delay(const MessageExt& msg, const std::string& pop_topic);
    void change_invisible_time(const MessageExt& msg, const std::string& pop_topic, std::int64_t millis);

    ConsumerState<T>& s_;
    std::shared_mutex acks_mutex_;
    bool acks_open_ = true;  // guarded by acks_mutex_
};

}  // namespace rmq::detail

#include <rmq/detail/pop_consumer/impl/pop_consume.hpp>
