#pragma once

/// @file remoting/headers/pop.hpp
/// The 5.x POP requests on the wire: POP_MESSAGE (200050), ACK_MESSAGE (200051) and
/// CHANGE_MESSAGE_INVISIBLETIME (200053) headers in the field machinery of rmq/remoting/headers/fields.hpp,
/// and the decoding of a POP_MESSAGE answer (MQClientAPIImpl.processPopResponse): every message gets its
/// receipt (POP_CK) from the answer's startOffsetInfo / msgOffsetInfo. These codes do not fit the ROCKETMQ
/// binary header: the requests always go with a JSON header (request_serialize_type).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rmq/config.hpp>
#include <rmq/pop.hpp>
#include <rmq/protocol.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/remoting/headers/fields.hpp>

namespace rmq::remoting {

/// POP_MESSAGE request header.
struct PopMessageRequestHeader {
    static constexpr std::string_view java_name = "PopMessageRequestHeader";
    std::string consumer_group;
    std::string topic;
    /// -1: any queue of the broker.
    std::int32_t queue_id = -1;
    std::int32_t max_msg_nums = 32;
    std::int64_t invisible_time = 0;
    std::int64_t poll_time = 0;
    /// The client's wall time when it sent the request (the broker refuses requests older than poll time +
    /// 500 ms: POLLING_TIMEOUT).
    std::int64_t born_time = 0;
    /// ConsumeInitMode: 0 MIN, 1 MAX.
    std::int32_t init_mode = 1;
    std::optional<std::string> exp_type;
    std::optional<std::string> exp;
    /// Orderly pop (PopArgs::order).
    std::optional<bool> order = false;
    std::optional<std::string> attempt_id;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("maxMsgNums", s.max_msg_nums);
        v("invisibleTime", s.invisible_time);
        v("pollTime", s.poll_time);
        v("bornTime", s.born_time);
        v("initMode", s.init_mode);
        v("expType", s.exp_type);
        v("exp", s.exp);
        v("order", s.order);
        v("attemptId", s.attempt_id);
        v("bname", s.bname);
    }

    /// The header for rmq::PopArgs, born at wall time `born_time`.
    static PopMessageRequestHeader from(const PopArgs& args, std::int64_t born_time);
};

/// POP_MESSAGE response header.
struct PopMessageResponseHeader {
    static constexpr std::string_view java_name = "PopMessageResponseHeader";
    std::int64_t pop_time = 0;
    std::int64_t invisible_time = 0;
    std::int32_t revive_qid = 0;
    std::int64_t rest_num = 0;
    /// "topicMark queueId startOffset" per queue, ';'-separated (5.x; absent from old brokers).
    std::optional<std::string> start_offset_info;
    /// "topicMark queueId offset,offset,..." per queue, ';'-separated.
    std::optional<std::string> msg_offset_info;
    std::optional<std::string> order_count_info;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("popTime", s.pop_time);
        v("invisibleTime", s.invisible_time);
        v("reviveQid", s.revive_qid);
        v("restNum", s.rest_num);
        v("startOffsetInfo", s.start_offset_info);
        v("msgOffsetInfo", s.msg_offset_info);
        v("orderCountInfo", s.order_count_info);
    }
};

/// ACK_MESSAGE request header.
struct AckMessageRequestHeader {
    static constexpr std::string_view java_name = "AckMessageRequestHeader";
    std::string consumer_group;
    /// The real topic: the pop retry topic for a redelivered message.
    std::string topic;
    std::int32_t queue_id = 0;
    std::string extra_info;
    std::int64_t offset = 0;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("extraInfo", s.extra_info);
        v("offset", s.offset);
        v("bname", s.bname);
    }

    /// The header for an ack of the receipt in `args` (DefaultMQPushConsumerImpl.ackAsync). Throws
    /// rmq::InvalidArgument for a malformed receipt.
    static AckMessageRequestHeader from(const AckArgs& args);
};

/// CHANGE_MESSAGE_INVISIBLETIME request header.
struct ChangeInvisibleTimeRequestHeader {
    static constexpr std::string_view java_name = "ChangeInvisibleTimeRequestHeader";
    std::string consumer_group;
    std::string topic;
    std::int32_t queue_id = 0;
    std::string extra_info;
    std::int64_t offset = 0;
    std::int64_t invisible_time = 0;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("extraInfo", s.extra_info);
        v("offset", s.offset);
        v("invisibleTime", s.invisible_time);
        v("bname", s.bname);
    }

    /// The header for `args` (DefaultMQPushConsumerImpl.changePopInvisibleTimeAsync). Throws
    /// rmq::InvalidArgument for a malformed receipt.
    static ChangeInvisibleTimeRequestHeader from(const ChangeInvisibleTimeArgs& args);
};

/// CHANGE_MESSAGE_INVISIBLETIME response header.
struct ChangeInvisibleTimeResponseHeader {
    static constexpr std::string_view java_name = "ChangeInvisibleTimeResponseHeader";
    std::int64_t pop_time = 0;
    std::int64_t invisible_time = 0;
    std::int32_t revive_qid = 0;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("popTime", s.pop_time);
        v("invisibleTime", s.invisible_time);
        v("reviveQid", s.revive_qid);
    }
};

/// MQClientAPIImpl.processPopResponse for a POP_MESSAGE answer from broker `broker_name` to a pop of
/// `topic`: SUCCESS decodes the messages and gives each its receipt (POP_CK, unless the broker set one, as
/// 5.x does for messages of the pop retry topic) and 1ST_POP_TIME, the subscribed topic and the broker name;
/// POLLING_FULL, POLLING_TIMEOUT and PULL_NOT_FOUND are answers without messages. Other codes throw
/// rmq::BrokerError; REQUEST_CODE_NOT_SUPPORTED (a 4.x broker) throws rmq::PopUnsupported. Throws
/// CodecError for an undecodable answer. The answer to an orderly pop (`order`) gives each message the
/// consumed count its orderCountInfo names as reconsume times.
PopResult to_pop_result(const Command& response,
                        std::string_view broker_name,
                        std::string_view topic,
                        bool order = false);

/// The new receipt a CHANGE_MESSAGE_INVISIBLETIME answer gives (MQClientAPIImpl.changeInvisibleTimeAsync):
/// the old receipt's fields with the request's offset as check point offset and the answer's pop time,
/// invisible time and revive queue. Throws like to_pop_result for an error code.
std::string changed_receipt(const Command& response, const ChangeInvisibleTimeRequestHeader& request);

/// Throws for a POP family answer that is not SUCCESS: rmq::PopUnsupported for REQUEST_CODE_NOT_SUPPORTED,
/// else rmq::BrokerError naming `what`.
void check_pop_answer(const Command& response, std::string_view what);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/impl/pop.ipp>
#endif
