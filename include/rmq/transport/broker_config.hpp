#pragma once

/// @file transport/broker_config.hpp
/// The embedded broker's public types: rmq::BrokerConfig (its settings), rmq::BrokerRequest (request kinds
/// for fault injection) and rmq::GroupMember (a consumer group member as the broker sees it). Included by
/// <rmq/transport/in_process.hpp>.

#include <cstdint>
#include <memory>
#include <string>

#include <rmq/assignment.hpp>
#include <rmq/clock.hpp>
#include <rmq/protocol.hpp>

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
    /// MessageStoreConfig.timerWheelEnable: accept 5.x timer messages (TIMER_DELIVER_MS / TIMER_DELAY_SEC /
    /// TIMER_DELAY_MS); when off they fail with MESSAGE_ILLEGAL (rmq::TimerRejected).
    bool timer_wheel_enable = true;
    /// MessageStoreConfig.timerMaxDelaySec: the longest delay a timer message may ask for (3 days); a longer
    /// one fails with MESSAGE_ILLEGAL (rmq::TimerRejected).
    std::int64_t timer_max_delay_sec = 3 * 24 * 3600;
    /// BrokerConfig.longPollingEnable: hold a suspended pull for its suspend timeout (else short polling).
    bool long_polling_enable = true;
    /// BrokerConfig.shortPollingTimeMills: hold time of a suspended pull when long polling is off.
    std::int64_t short_polling_time_mills = 1000;
    /// BrokerConfig.maxPopPollingSize: POP requests held for long polling at most (more: POLLING_FULL).
    std::int64_t max_pop_polling_size = 100000;
    /// BrokerConfig.popPollingSize: POP requests held per topic, group and queue id at most (+1; more:
    /// POLLING_FULL).
    std::int32_t pop_polling_size = 1024;
    /// BrokerConfig.channelExpiredTimeout (4.9.8: ConsumerManager.CHANNEL_EXPIRED_TIMEOUT): a client without
    /// a heartbeat for this long is removed from its groups.
    std::int64_t channel_expired_timeout = 120000;
    /// rocketmq.broker.rebalance.lockMaxLiveTime: an orderly queue lock not renewed for this long expires.
    std::int64_t rebalance_lock_max_live_time = 60000;
    /// MessageStoreConfig.maxTransferCountOnMessageInMemory: messages per pull answer.
    std::int32_t max_transfer_count_on_message_in_memory = 32;
    /// MessageStoreConfig.maxTransferBytesOnMessageInMemory: bytes per pull answer.
    std::int32_t max_transfer_bytes_on_message_in_memory = 256 * 1024;
    /// SubscriptionGroupConfig.retryMaxTimes: send-back limit when the client does not send its own; for POP,
    /// a message whose invisible time expired more often than this goes to %DLQ%<group>.
    std::int32_t retry_max_times = 16;
    /// BrokerConfig.enablePropertyFilter: serve SQL92 subscriptions (filtering by message properties); when
    /// off, a pull with an SQL92 subscription fails with SYSTEM_ERROR as on a Java broker.
    bool enable_property_filter = false;
    /// BrokerConfig.notifyConsumerIdsChangedEnable: send NOTIFY_CONSUMER_IDS_CHANGED on membership changes.
    bool notify_consumer_ids_changed_enable = true;
    /// BrokerConfig.transactionCheckInterval: how often unresolved half messages are checked back with their
    /// producer group (ms; 4.9.x's default, 5.x has 30 s).
    std::int64_t transaction_check_interval = 60 * 1000;
    /// BrokerConfig.transactionTimeOut: a half message younger than this (since it was born) is not checked.
    std::int64_t transaction_time_out = 6 * 1000;
    /// BrokerConfig.transactionCheckMax: checks of one half message; after that it is discarded (moved to
    /// TRANS_CHECK_MAX_TIME_TOPIC, never delivered).
    std::int32_t transaction_check_max = 15;
    /// BrokerConfig.rejectTransactionMessage: refuse half messages (NO_PERMISSION).
    bool reject_transaction_message = false;
    /// BrokerConfig.serverLoadBalancerEnable: QUERY_ASSIGNMENT splits the queues among the group (else every
    /// member gets every queue).
    bool server_load_balancer_enable = true;
    /// BrokerConfig.defaultMessageRequestMode: the mode QUERY_ASSIGNMENT gives a topic no
    /// SET_MESSAGE_REQUEST_MODE configured (a retry topic is always PULL).
    MessageRequestMode default_message_request_mode = MessageRequestMode::Pull;
    /// BrokerConfig.defaultPopShareQueueNum: popShareQueueNum under default_message_request_mode POP.
    std::int32_t default_pop_share_queue_num = -1;
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
    EndTransaction,
    /// 5.x POP_MESSAGE.
    Pop,
    /// 5.x ACK_MESSAGE (a lost ack: the message comes back when its invisible time is over).
    Ack,
    /// 5.x CHANGE_MESSAGE_INVISIBLETIME.
    ChangeInvisibleTime,
    /// 5.x BATCH_ACK_MESSAGE (a lost batch: its messages come back when their invisible time is over).
    BatchAck,
    /// 5.x QUERY_ASSIGNMENT (a failed query: the member keeps its queues).
    QueryAssignment,
    /// 5.x SET_MESSAGE_REQUEST_MODE.
    SetMessageRequestMode,
};

/// One client of a consumer group as the embedded broker sees it (see InProcessBroker::group_members).
struct GroupMember {
    std::string client_id;
    /// The ConsumerData of this group in the client's last heartbeat.
    ConsumerData consumer_data;
    /// Clock steady time of the last heartbeat.
    std::int64_t last_update_timestamp = 0;
};

}  // namespace rmq
