#pragma once

/// @file consume_hooks.hpp
/// rmq::ConsumeHooks: callbacks around each listener call (Java's ConsumeMessageHook).

#include <functional>
#include <span>

#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>

namespace rmq {

/// Optional callbacks around each listener call (Java's ConsumeMessageHook): `before(mq, msgs)` and
/// `after(mq, msgs, success)`. They run on the consume thread; exceptions they throw are logged and ignored.
struct ConsumeHooks {
    std::function<void(const MessageQueue&, std::span<const MessageExt>)> before;
    std::function<void(const MessageQueue&, std::span<const MessageExt>, bool)> after;
};

}  // namespace rmq
