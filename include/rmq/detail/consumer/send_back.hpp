#pragma once

/// @file detail/consumer/send_back.hpp
/// rmq::detail::SendBack: failed messages back to the broker: Java's sendMessageBack
/// (CONSUMER_SEND_MSG_BACK, falling back to a retry copy the client sends to %RETRY%group itself) and the
/// orderly path straight to %DLQ%group.

#include <rmq/message.hpp>

#include <rmq/detail/consumer/state.hpp>

namespace rmq::detail {

template <class T>
class SendBack {
public:
    explicit SendBack(ConsumerState<T>& state)
        : s_(state) {}

    /// False when both the send-back and the retry copy failed.
    bool send_back(const MessageExt& msg, int delay_level);
    /// False when the broker could not be reached.
    bool send_to_dlq(const MessageExt& msg);

private:
    bool send_retry_copy(const MessageExt& msg);

    ConsumerState<T>& s_;
};

}  // namespace rmq::detail

#include <rmq/detail/consumer/impl/send_back.hpp>
