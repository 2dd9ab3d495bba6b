#pragma once

/// @file detail/broker/pull.hpp
/// PULL_MESSAGE on the embedded broker (PullMessageProcessor + DefaultMessageStore.getMessage): the checks in
/// Java's order, the subscription a pull filters with, and the scan of one queue (batch limits, max scan,
/// tag filter, SQL92 filter over the message's properties) with its status mapping. Holding a pull that found
/// nothing is long_poll.hpp's.

#include <cstdint>
#include <optional>

#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/protocol.hpp>
#include <rmq/subscription.hpp>
#include <rmq/transport/broker_config.hpp>

#include <rmq/detail/broker/membership.hpp>
#include <rmq/detail/broker/store.hpp>
#include <rmq/detail/broker/subscription_groups.hpp>
#include <rmq/detail/filter/parser.hpp>

namespace rmq::detail {

/// ConsumeQueue.CQ_STORE_UNIT_SIZE.
inline constexpr std::int64_t consume_queue_unit_size = 20;
/// MessageStoreConfig.mappedFileSizeConsumeQueue / unit: one consume-queue file holds 300000 units.
inline constexpr std::int64_t consume_queue_file_units = 300000;
/// DefaultMessageStore.getMessage: the scan covers at least 16000 bytes of consume queue.
inline constexpr std::int64_t max_filter_message_bytes = 16000;

/// PullMessageProcessor's checks of broker, consumer group, topic and queue id, in Java's order (an unknown
/// group is created when auto-creation is on). The failure to answer with, or nullopt.
std::optional<Outcome<PullResult>> check_pull_target(const PullArgs& a,
                                                     const BrokerConfig& config,
                                                     SubscriptionGroups& groups,
                                                     const MessageStore& store);

/// The subscription a pull filters with: parsed from the request with the SUBSCRIPTION flag, else the
/// group's stored one (SUBSCRIPTION_NOT_EXIST / SUBSCRIPTION_NOT_LATEST when missing or older than the
/// request's version). SQL92 needs config.enable_property_filter (SYSTEM_ERROR otherwise) and an expression
/// that compiles (SUBSCRIPTION_PARSE_FAILED otherwise).
Outcome<SubscriptionData>
pull_subscription(const PullArgs& a, const Membership& membership, const BrokerConfig& config);

/// DefaultMessageStore.getMessage on one queue plus PullMessageProcessor's status mapping (4.9.8, master).
/// `code` gets the store's response code (SUCCESS, PULL_NOT_FOUND, PULL_RETRY_IMMEDIATELY,
/// PULL_OFFSET_MOVED).
PullResult get_message(const QueueLog& q,
                       const PullArgs& a,
                       const std::optional<SubscriptionData>& sub,
                       const BrokerConfig& config,
                       int& code);

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/pull.ipp>
#endif
