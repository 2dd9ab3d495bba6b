#pragma once

/// @file pop.hpp
/// RocketMQ 5.x POP consumption as a transport sees it (rmq::HasPop): the POP_MESSAGE, ACK_MESSAGE and
/// CHANGE_MESSAGE_INVISIBLETIME requests, their results, and rmq::PopReceipt, the "extraInfo" each popped
/// message carries in its POP_CK property and every ack sends back. See docs/pop.md.

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message.hpp>
#include <rmq/subscription.hpp>

namespace rmq {

/// Java's ConsumeInitMode: where a group that never popped a queue starts.
enum class ConsumeInitMode : std::int32_t { Min = 0, Max = 1 };

/// A POP_MESSAGE request (PopMessageRequestHeader) to one broker.
struct PopArgs {
    std::string consumer_group;
    std::string topic;
    /// The broker to pop from (a name of the topic's route).
    std::string broker_name;
    /// -1: the broker picks among its queues of the topic (and the group's pop retry topic).
    std::int32_t queue_id = -1;
    /// At most 32 (a broker refuses more).
    std::int32_t max_msg_nums = 32;
    /// How long the popped messages stay invisible to the group unless acked.
    std::int64_t invisible_time_millis = 60000;
    /// How long the broker may hold the request when nothing is there (long polling); 0 answers at once.
    std::int64_t poll_time_millis = 0;
    ConsumeInitMode init_mode = ConsumeInitMode::Max;
    std::string expression_type{expression_type_tag};
    std::string expression{"*"};
    /// Orderly pop (PopMessageRequestHeader.order): the broker serves each queue's messages in order and none
    /// of a queue while a batch it popped from it is neither acked nor past its invisible time; no pop retry
    /// topic, no check points (receipts name revive queue pop_order_revive_queue). A redelivered message
    /// carries its consumed count as reconsume times.
    bool order = false;
};

/// Java's PopStatus.
enum class PopStatus { Found, NoNewMsg, PollingFull, PollingNotFound };

/// A POP_MESSAGE answer, decoded: each message has its receipt in property POP_CK, the subscribed topic
/// (also for a redelivery, which the broker serves from its retry topic) and the broker name.
struct PopResult {
    PopStatus status = PopStatus::NoNewMsg;
    std::vector<MessageExt> msg_found_list;
    /// Broker wall time (ms) of the pop.
    std::int64_t pop_time = 0;
    std::int64_t invisible_time = 0;
    /// Messages left in the queue(s) after this pop.
    std::int64_t rest_num = 0;
};

/// The outcome of an asynchronous pop (rmq::HasAsyncPop): the result, or (non-null) what the synchronous
/// pop_message would have thrown, with an empty result.
using PopCompletion = std::function<void(PopResult, std::exception_ptr)>;

/// An ACK_MESSAGE request: the message's receipt (its POP_CK property) names broker, queue and offset.
struct AckArgs {
    std::string consumer_group;
    /// The subscribed topic (not the retry topic: the receipt says which it came from).
    std::string topic;
    /// The receipt (PopReceipt text).
    std::string extra_info;
};

/// The outcome of an asynchronous ack: null, or what the synchronous ack_message would have thrown.
using AckCompletion = std::function<void(std::exception_ptr)>;

/// A BATCH_ACK_MESSAGE request (rmq::HasBatchAck): acks of receipts that all name one broker.
struct BatchAckArgs {
    std::vector<AckArgs> acks;
};

/// Java's BatchAck: the acked messages of one check point (one pop of one queue), as offsets from the
/// check point's start.
struct BatchAck {
    std::string consumer_group;
    /// The subscribed topic; `retry` says whether the messages are in its pop retry topic.
    std::string topic;
    /// ExtraInfoUtil's topic mark: "0", "1" (pop retry topic), "2" (its V2 form).
    std::string retry = "0";
    std::int64_t start_offset = 0;
    std::int32_t queue_id = 0;
    std::int32_t revive_queue_id = 0;
    std::int64_t pop_time = 0;
    std::int64_t invisible_time = 0;
    /// The set bits of Java's BitSet, ascending: message offset - start_offset.
    std::vector<std::int32_t> bits;

    friend bool operator==(const BatchAck&, const BatchAck&) = default;
};

/// Java's BatchAckMessageRequestBody, the body of BATCH_ACK_MESSAGE.
struct BatchAckRequest {
    /// Largest offset of a message past its check point's start a receipt may have: a pop's messages lie
    /// within its scan, and a larger gap is a malformed receipt that would make a bit set of megabytes.
    static constexpr std::int64_t max_bit = (std::int64_t{1} << 20) - 1;

    std::optional<std::string> broker_name;
    std::vector<BatchAck> acks;

    /// MQClientAPIImpl.batchAckMessageAsync's grouping, across topics and groups: one BatchAck per (group,
    /// topic, topic mark, queue, check point offset, pop time), in the order first seen, each with a bit
    /// per receipt; the broker the receipts name. rmq::InvalidArgument for no acks, a malformed receipt,
    /// receipts of different brokers, or a message before its check point or more than max_bit past it.
    static BatchAckRequest of(const BatchAckArgs& args);

    friend bool operator==(const BatchAckRequest&, const BatchAckRequest&) = default;
};

/// A CHANGE_MESSAGE_INVISIBLETIME request: the message becomes visible again `invisible_time_millis` from
/// now. The broker replaces the message's check point: the answer is the new receipt, the old one is spent.
struct ChangeInvisibleTimeArgs {
    std::string consumer_group;
    std::string topic;
    std::string extra_info;
    std::int64_t invisible_time_millis = 0;
};

/// Java's ExtraInfoUtil fields: "ckQueueOffset popTime invisibleTime reviveQid topicMark brokerName queueId
/// queueOffset", space-separated (topicMark "1" for a message of the pop retry topic, "2" of its V2 form,
/// else "0").
struct PopReceipt {
    std::int64_t ck_queue_offset = 0;
    std::int64_t pop_time = 0;
    std::int64_t invisible_time = 0;
    std::int32_t revive_qid = 0;
    bool retry = false;  ///< from the group's pop retry topic (topicMark "1" or "2")
    std::string broker_name;
    std::int32_t queue_id = 0;
    std::int64_t queue_offset = 0;
    /// topicMark "2": from the V2 pop retry topic `%RETRY%<group>+<topic>` (brokers with enableRetryTopicV2);
    /// last, so that positional initialisers of the fields above keep their meaning.
    bool retry_v2 = false;

    /// Parses a receipt; throws rmq::InvalidArgument naming what is wrong (fewer than 8 fields, a number
    /// that does not parse).
    static PopReceipt parse(std::string_view extra_info);

    /// The receipt of `msg` (its POP_CK property); rmq::InvalidArgument when it has none (not a popped
    /// message).
    static PopReceipt of(const MessageExt& msg);

    /// The topicMark field: '2' (retry_v2), '1' (retry) or '0'.
    [[nodiscard]] char topic_mark() const noexcept { return retry_v2 ? '2' : (retry ? '1' : '0'); }

    /// ExtraInfoUtil.buildExtraInfo with the message's queue offset.
    [[nodiscard]] std::string to_string() const;

    /// The topic an ack must name (ExtraInfoUtil.getRealTopic): `topic`, or for a redelivered message the
    /// group's pop retry topic `%RETRY%<group>_<topic>` (KeyBuilder.buildPopRetryTopic),
    /// `%RETRY%<group>+<topic>` for topicMark "2".
    [[nodiscard]] std::string real_topic(std::string_view topic, std::string_view group) const;

    /// A receipt of an orderly pop (ExtraInfoUtil.isOrder: revive queue pop_order_revive_queue).
    [[nodiscard]] bool order() const noexcept;

    /// The wall time (ms) the message becomes visible again.
    [[nodiscard]] std::int64_t visible_at() const noexcept { return pop_time + invisible_time; }

    friend bool operator==(const PopReceipt&, const PopReceipt&) = default;
};

/// KeyBuilder.POP_ORDER_REVIVE_QUEUE: the revive queue id an orderly pop's receipts name (a broker then acks
/// and changes them through its ConsumerOrderInfoManager instead of check points).
inline constexpr std::int32_t pop_order_revive_queue = 999;

inline bool PopReceipt::order() const noexcept {
    return revive_qid == pop_order_revive_queue;
}

/// KeyBuilder.buildPopRetryTopic: `%RETRY%<group>_<topic>`, where a 5.x broker puts messages whose
/// invisibility expired.
std::string pop_retry_topic(std::string_view topic, std::string_view group);

/// KeyBuilder.buildPopRetryTopicV2: `%RETRY%<group>+<topic>`, the pop retry topic of brokers with
/// enableRetryTopicV2.
std::string pop_retry_topic_v2(std::string_view topic, std::string_view group);

/// ExtraInfoUtil's topicMark of a message stored in `topic`: '2' for a V2 pop retry topic
/// (KeyBuilder.isPopRetryTopicV2: a retry topic with a '+'), '1' for another retry topic, else '0'.
char pop_topic_mark(std::string_view topic) noexcept;

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/batch_ack.ipp>
#    include <rmq/impl/pop.ipp>
#endif
