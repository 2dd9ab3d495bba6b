#pragma once

/// @file allocate/by_config.hpp
/// rmq::AllocateByConfig: a fixed, configured queue list (Java's AllocateMessageQueueByConfig, "CONFIG").

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/message_queue.hpp>

namespace rmq {

/// Every consumer gets the configured `message_queue_list`, whatever the group looks like: no rebalancing at
/// all, and no argument checks (as in Java). Useful to pin one process to known queues; two consumers of the
/// same group configured with overlapping lists both consume the overlap.
class AllocateByConfig {
public:
    /// An empty list: the consumer owns nothing until configured.
    AllocateByConfig() = default;

    /// @param message_queue_list the queues returned by every allocate() call (Java's messageQueueList).
    explicit AllocateByConfig(std::vector<MessageQueue> message_queue_list)
        : message_queue_list_(std::move(message_queue_list)) {}

    /// Java's strategy name.
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "CONFIG"; }

    /// The configured queues.
    [[nodiscard]] const std::vector<MessageQueue>& message_queue_list() const noexcept {
        return message_queue_list_;
    }

    /// The configured queues, verbatim; the arguments are ignored (docs/policies/allocate.md).
    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view /*group*/,
                                                     std::string_view /*current_cid*/,
                                                     std::span<const MessageQueue> /*mq_all*/,
                                                     std::span<const std::string> /*cid_all*/) const {
        return message_queue_list_;
    }

private:
    std::vector<MessageQueue> message_queue_list_;
};

}  // namespace rmq
