#pragma once

/// @file detail/pop_consumer/pop_mode.hpp
/// Which push consumers can run in POP mode, and the error for the others.

#include <concepts>
#include <string>

#include <fmt/format.h>

#include <rmq/concepts/transport.hpp>
#include <rmq/consume_context.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/error.hpp>

#include <rmq/detail/consumer/poll_hooks.hpp>

namespace rmq::detail {

/// POP mode needs a concurrent listener (Java has ConsumeMessagePopConcurrentlyService; orderly POP needs the
/// broker's `order` flag on POP_MESSAGE and its per-queue order check points, not in rmq) and a transport
/// with POP_MESSAGE, ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME.
template <class Order, class Tr>
concept PopConsumable = HasPop<Tr> && std::same_as<typename Order::Status, ConsumeConcurrentlyStatus> &&
                        !Order::requires_queue_lock && !PollDriven<Order>;

/// rmq::InvalidArgument when `config` asks for POP mode and the consumer cannot run it.
template <class Order, class Tr>
void check_pop_mode(const ConsumerConfig& config) {
    if (config.message_request_mode != MessageRequestMode::Pop) {
        return;
    }
    if constexpr (!HasPop<Tr>) {
        throw InvalidArgument("message_request_mode Pop needs a transport with POP (rmq::HasPop): "
                              "rmq::RemotingTransport or rmq::InProcessTransport");
    } else if constexpr (!PopConsumable<Order, Tr>) {
        throw InvalidArgument(fmt::format("message_request_mode Pop needs rmq::Concurrently (a listener {}): "
                                          "orderly POP (the broker's order "
                                          "flag and its ordered check points) is not in rmq",
                                          "returning rmq::ConsumeConcurrentlyStatus"));
    }
}

}  // namespace rmq::detail
