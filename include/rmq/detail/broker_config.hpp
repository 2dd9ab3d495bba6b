#pragma once

/// @file detail/broker_config.hpp
/// rmq::BrokerConfig (the embedded broker's settings) and the delay-level table parser. Users include
/// <rmq/transport/in_process.hpp>, which re-exports these.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/error.hpp>

namespace rmq {

/// Settings of the embedded broker. Each field is the snake_case of the Java broker setting it mirrors
/// (BrokerConfig / MessageStoreConfig), with the same default.
struct BrokerConfig {
    /// BrokerConfig.brokerName.
    std::string broker_name = "broker-a";
    /// MessageStoreConfig.messageDelayLevel: level N (1-based) waits the N-th duration (units s, m, h, d).
    std::string message_delay_level = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h";
    /// BrokerConfig.autoCreateTopicEnable: a send to an unknown topic creates it (and TBW102 exists).
    bool auto_create_topic_enable = true;
    /// BrokerConfig.defaultTopicQueueNums: queues of an auto-created topic.
    std::int32_t default_topic_queue_nums = 4;
    /// BrokerConfig.autoCreateSubscriptionGroup: an unknown consumer group is created on first use.
    bool auto_create_subscription_group = true;
    /// MessageStoreConfig.maxMessageSize (bytes of body; a larger send fails with MESSAGE_ILLEGAL).
    std::int32_t max_message_size = 1024 * 1024 * 4;
    /// BrokerConfig.longPollingEnable: hold a suspended pull for its suspend timeout (else short polling).
    bool long_polling_enable = true;
    /// BrokerConfig.shortPollingTimeMills: hold time of a suspended pull when long polling is off.
    std::int64_t short_polling_time_mills = 1000;
    /// BrokerConfig.channelExpiredTimeout (4.9.8: ConsumerManager.CHANNEL_EXPIRED_TIMEOUT): a client without
    /// a heartbeat for this long is removed from its groups.
    std::int64_t channel_expired_timeout = 120000;
    /// rocketmq.broker.rebalance.lockMaxLiveTime: an orderly queue lock not renewed for this long expires.
    std::int64_t rebalance_lock_max_live_time = 60000;
    /// MessageStoreConfig.maxTransferCountOnMessageInMemory: messages per pull answer.
    std::int32_t max_transfer_count_on_message_in_memory = 32;
    /// MessageStoreConfig.maxTransferBytesOnMessageInMemory: bytes per pull answer.
    std::int32_t max_transfer_bytes_on_message_in_memory = 256 * 1024;
    /// SubscriptionGroupConfig.retryMaxTimes: send-back limit when the client does not send its own.
    std::int32_t retry_max_times = 16;
    /// BrokerConfig.notifyConsumerIdsChangedEnable: send NOTIFY_CONSUMER_IDS_CHANGED on membership changes.
    bool notify_consumer_ids_changed_enable = true;
    /// The broker's time source (timestamps, long-poll timeouts, delays, expiries).
    std::shared_ptr<Clock> clock = system_clock();
};

/// Requests of the embedded broker whose answers can be replaced by an error
/// (InProcessBroker::inject_failure), to test how clients cope with broker errors.
enum class BrokerRequest {
    TopicRoute,
    Heartbeat,
    ConsumerIdList,
    Pull,
    QueryConsumerOffset,
    UpdateConsumerOffset,
    LockBatch,
    UnlockBatch,
    Send,
    SendBack,
};

namespace detail {

/// Parses MessageStoreConfig.messageDelayLevel ("1s 5s 1m 2h ..."; units s, m, h, d) into milliseconds per
/// level (index 0 = level 1). Throws rmq::InvalidArgument for an unknown unit or number.
inline std::vector<std::int64_t> parse_delay_levels(std::string_view text) {
    std::vector<std::int64_t> out;
    while (!text.empty()) {
        const std::size_t start = text.find_first_not_of(' ');
        if (start == std::string_view::npos) {
            break;
        }
        text.remove_prefix(start);
        const std::size_t end = std::min(text.find(' '), text.size());
        const std::string_view item = text.substr(0, end);
        text.remove_prefix(end);
        if (item.size() < 2) {
            throw InvalidArgument(fmt::format("message_delay_level: bad item \"{}\"", item));
        }
        std::int64_t unit = 0;
        switch (item.back()) {
        case 's':
            unit = 1000;
            break;
        case 'm':
            unit = 60 * 1000;
            break;
        case 'h':
            unit = 60 * 60 * 1000;
            break;
        case 'd':
            unit = 24 * 60 * 60 * 1000;
            break;
        default:
            throw InvalidArgument(fmt::format("message_delay_level: unknown unit in \"{}\"", item));
        }
        std::int64_t n = 0;
        for (const char c : item.substr(0, item.size() - 1)) {
            if (c < '0' || c > '9') {
                throw InvalidArgument(fmt::format("message_delay_level: bad number in \"{}\"", item));
            }
            n = n * 10 + (c - '0');
        }
        out.push_back(n * unit);
    }
    if (out.empty()) {
        throw InvalidArgument("message_delay_level is empty");
    }
    return out;
}

}  // namespace detail

}  // namespace rmq
