#pragma once

/// @file remoting/headers.hpp
/// Typed request/response headers ("custom headers") of the requests a push consumer and a simple producer
/// need, converted to and from RemotingCommand ext fields the way Java's makeCustomHeaderToNet /
/// decodeCommandCustomHeader do: every value is text (String.valueOf), absent optional fields are not sent.
/// Field order follows the Java classes (FastCodesHeader encode() order where Java has one), so ROCKETMQ
/// binary frames match what a Java peer writes.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include <rmq/protocol.hpp>
#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/remoting/request_code.hpp>

namespace rmq::remoting {

namespace detail {

template <class T>
struct IsOptional : std::false_type {};

template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

inline std::string header_text(const std::string& v) {
    return v;
}

inline std::string header_text(bool v) {
    return v ? "true" : "false";
}

template <class Int>
requires std::is_integral_v<Int>
std::string header_text(Int v) {
    return fmt::format("{}", v);
}

/// Appends fields to ext fields (String.valueOf; null optional fields skipped).
struct HeaderWriter {
    ExtFields& out;

    template <class T>
    void operator()(std::string_view key, const T& value) const {
        if constexpr (IsOptional<T>::value) {
            if (value) {
                out.set(key, header_text(*value));
            }
        } else {
            out.set(key, header_text(value));
        }
    }
};

/// Reads fields from ext fields: non-optional fields are required ("the custom field <x> is null", as Java's
/// @CFNotNull check says), numbers parse like Integer/Long.parseLong, booleans like Boolean.parseBoolean.
struct HeaderReader {
    const ExtFields& in;
    std::string_view header;

    template <class T>
    void operator()(std::string_view key, T& value) const {
        const auto text = in.get(key);
        if constexpr (IsOptional<T>::value) {
            if (text) {
                typename T::value_type v{};
                parse(key, *text, v);
                value = std::move(v);
            } else {
                value.reset();
            }
        } else {
            if (!text) {
                throw CodecError(fmt::format("{}: the custom field <{}> is null", header, key));
            }
            parse(key, *text, value);
        }
    }

    void parse(std::string_view /*key*/, std::string_view text, std::string& v) const {
        v = std::string(text);
    }

    void parse(std::string_view /*key*/, std::string_view text, bool& v) const {
        v = text.size() == 4 && (text[0] == 't' || text[0] == 'T') && (text[1] == 'r' || text[1] == 'R') &&
            (text[2] == 'u' || text[2] == 'U') && (text[3] == 'e' || text[3] == 'E');
    }

    template <class Int>
    requires std::is_integral_v<Int>
    void parse(std::string_view key, std::string_view text, Int& v) const {
        std::string_view digits = text;
        if (!digits.empty() && digits.front() == '+') {
            digits.remove_prefix(1);  // Java's parseInt accepts a leading '+'
        }
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty()) {
            throw CodecError(fmt::format(
                "{}: field <{}> = \"{}\" is not a valid {}-bit integer", header, key, text, sizeof(Int) * 8));
        }
    }
};

}  // namespace detail

/// The ext fields of a typed header (makeCustomHeaderToNet), in the header's field order.
template <class Header>
ExtFields to_ext_fields(const Header& header) {
    ExtFields out;
    Header::fields(header, detail::HeaderWriter{out});
    return out;
}

/// Appends a typed header's fields to existing ext fields (e.g. after fields a broker adds itself).
template <class Header>
void append_ext_fields(ExtFields& out, const Header& header) {
    Header::fields(header, detail::HeaderWriter{out});
}

/// Decodes a typed header from ext fields (decodeCommandCustomHeader). Throws CodecError when a required
/// field is missing or a number does not parse.
template <class Header>
Header from_ext_fields(const ExtFields& fields) {
    Header h{};
    Header::fields(h, detail::HeaderReader{fields, Header::java_name});
    return h;
}

/// The typed header of a received command (absent ext fields read as an empty map).
template <class Header>
Header header_of(const Command& cmd) {
    static const ExtFields empty;
    return from_ext_fields<Header>(cmd.ext_fields ? *cmd.ext_fields : empty);
}

/// A request command carrying `header` (opaque is the transport's business).
template <class Header>
Command make_request(std::int32_t code, const Header& header, std::string body = {}) {
    Command cmd;
    cmd.code = code;
    cmd.ext_fields = to_ext_fields(header);
    cmd.body = std::move(body);
    return cmd;
}

/// PULL_MESSAGE (11) / LITE_PULL_MESSAGE (361) request header (FastCodesHeader).
struct PullMessageRequestHeader {
    static constexpr std::string_view java_name = "PullMessageRequestHeader";
    std::string consumer_group;
    std::string topic;
    std::int32_t queue_id = 0;
    std::int64_t queue_offset = 0;
    std::int32_t max_msg_nums = 32;
    std::int32_t sys_flag = 0;
    std::int64_t commit_offset = 0;
    std::int64_t suspend_timeout_millis = 0;
    std::optional<std::string> subscription;
    std::int64_t sub_version = 0;
    std::optional<std::string> expression_type;
    /// 5.x only.
    std::optional<std::int32_t> max_msg_bytes;
    /// Target broker name (5.x RPC field; required through a 5.x Proxy, ignored by plain brokers).
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("queueOffset", s.queue_offset);
        v("maxMsgNums", s.max_msg_nums);
        v("sysFlag", s.sys_flag);
        v("commitOffset", s.commit_offset);
        v("suspendTimeoutMillis", s.suspend_timeout_millis);
        v("subscription", s.subscription);
        v("subVersion", s.sub_version);
        v("expressionType", s.expression_type);
        v("maxMsgBytes", s.max_msg_bytes);
        v("bname", s.bname);
    }

    /// The header for rmq::PullArgs (the queue's broker name goes to `bname`).
    static PullMessageRequestHeader from(const PullArgs& args) {
        PullMessageRequestHeader h;
        h.consumer_group = args.consumer_group;
        h.topic = args.mq.topic;
        h.queue_id = args.mq.queue_id;
        h.queue_offset = args.queue_offset;
        h.max_msg_nums = args.max_msg_nums;
        h.sys_flag = args.sys_flag;
        h.commit_offset = args.commit_offset;
        h.suspend_timeout_millis = args.suspend_timeout_millis;
        h.subscription = args.subscription;
        h.sub_version = args.sub_version;
        h.expression_type = args.expression_type;
        h.bname = args.mq.broker_name;
        return h;
    }
};

/// PULL_MESSAGE response header (FastCodesHeader).
struct PullMessageResponseHeader {
    static constexpr std::string_view java_name = "PullMessageResponseHeader";
    std::int64_t suggest_which_broker_id = 0;
    std::int64_t next_begin_offset = 0;
    std::int64_t min_offset = 0;
    std::int64_t max_offset = 0;
    /// 5.x static topics: add to every message's queue offset.
    std::optional<std::int64_t> offset_delta;
    std::optional<std::int32_t> topic_sys_flag;
    std::optional<std::int32_t> group_sys_flag;
    std::optional<std::int32_t> forbidden_type;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("suggestWhichBrokerId", s.suggest_which_broker_id);
        v("nextBeginOffset", s.next_begin_offset);
        v("minOffset", s.min_offset);
        v("maxOffset", s.max_offset);
        v("offsetDelta", s.offset_delta);
        v("topicSysFlag", s.topic_sys_flag);
        v("groupSysFlag", s.group_sys_flag);
        v("forbiddenType", s.forbidden_type);
    }
};

/// QUERY_CONSUMER_OFFSET (14) request header.
struct QueryConsumerOffsetRequestHeader {
    static constexpr std::string_view java_name = "QueryConsumerOffsetRequestHeader";
    std::string consumer_group;
    std::string topic;
    std::int32_t queue_id = 0;
    /// 5.x: false asks for QUERY_NOT_FOUND instead of offset 0 when nothing is stored.
    std::optional<bool> set_zero_if_not_found;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("setZeroIfNotFound", s.set_zero_if_not_found);
        v("bname", s.bname);
    }
};

/// Response header carrying one offset (QUERY_CONSUMER_OFFSET, GET_MAX/MIN_OFFSET,
/// SEARCH_OFFSET_BY_TIMESTAMP). Absent in a QUERY_NOT_FOUND answer.
struct OffsetResponseHeader {
    static constexpr std::string_view java_name = "OffsetResponseHeader";
    std::optional<std::int64_t> offset;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("offset", s.offset);
    }
};

/// UPDATE_CONSUMER_OFFSET (15) request header.
struct UpdateConsumerOffsetRequestHeader {
    static constexpr std::string_view java_name = "UpdateConsumerOffsetRequestHeader";
    std::string consumer_group;
    std::string topic;
    std::int32_t queue_id = 0;
    std::int64_t commit_offset = 0;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("commitOffset", s.commit_offset);
        v("bname", s.bname);
    }
};

/// GET_MAX_OFFSET (30) request header.
struct GetMaxOffsetRequestHeader {
    static constexpr std::string_view java_name = "GetMaxOffsetRequestHeader";
    std::string topic;
    std::int32_t queue_id = 0;
    /// 5.x, default true.
    std::optional<bool> committed;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("committed", s.committed);
        v("bname", s.bname);
    }
};

/// GET_MIN_OFFSET (31) request header.
struct GetMinOffsetRequestHeader {
    static constexpr std::string_view java_name = "GetMinOffsetRequestHeader";
    std::string topic;
    std::int32_t queue_id = 0;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("bname", s.bname);
    }
};

/// SEARCH_OFFSET_BY_TIMESTAMP (29) request header.
struct SearchOffsetRequestHeader {
    static constexpr std::string_view java_name = "SearchOffsetRequestHeader";
    std::string topic;
    std::int32_t queue_id = 0;
    /// Store timestamp, ms since the epoch.
    std::int64_t timestamp = 0;
    /// 5.x: "lower" (default) or "upper".
    std::optional<std::string> boundary_type;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("timestamp", s.timestamp);
        v("boundaryType", s.boundary_type);
        v("bname", s.bname);
    }
};

/// GET_CONSUMER_LIST_BY_GROUP (38) request header; also NOTIFY_CONSUMER_IDS_CHANGED (40) from the broker.
struct ConsumerGroupRequestHeader {
    static constexpr std::string_view java_name = "GetConsumerListByGroupRequestHeader";
    std::string consumer_group;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("bname", s.bname);
    }
};

/// GET_CONSUMER_LIST_BY_GROUP request header.
using GetConsumerListByGroupRequestHeader = ConsumerGroupRequestHeader;
/// NOTIFY_CONSUMER_IDS_CHANGED request header (broker to client, oneway).
using NotifyConsumerIdsChangedRequestHeader = ConsumerGroupRequestHeader;

/// UNREGISTER_CLIENT (35) request header (note the capital "ID").
struct UnregisterClientRequestHeader {
    static constexpr std::string_view java_name = "UnregisterClientRequestHeader";
    std::string client_id;
    std::optional<std::string> producer_group;
    std::optional<std::string> consumer_group;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("clientID", s.client_id);
        v("producerGroup", s.producer_group);
        v("consumerGroup", s.consumer_group);
        v("bname", s.bname);
    }
};

/// Header of LOCK_BATCH_MQ (41) / UNLOCK_BATCH_MQ (42): only the 5.x RPC field (the body carries the rest).
struct BatchMqRequestHeader {
    static constexpr std::string_view java_name = "LockBatchMqRequestHeader";
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("bname", s.bname);
    }
};

/// CONSUMER_SEND_MSG_BACK (36) request header.
struct ConsumerSendMsgBackRequestHeader {
    static constexpr std::string_view java_name = "ConsumerSendMsgBackRequestHeader";
    /// The message's commit-log offset.
    std::int64_t offset = 0;
    std::string group;
    std::int32_t delay_level = 0;
    std::optional<std::string> origin_msg_id;
    std::optional<std::string> origin_topic;
    bool unit_mode = false;
    std::optional<std::int32_t> max_reconsume_times;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("offset", s.offset);
        v("group", s.group);
        v("delayLevel", s.delay_level);
        v("originMsgId", s.origin_msg_id);
        v("originTopic", s.origin_topic);
        v("unitMode", s.unit_mode);
        v("maxReconsumeTimes", s.max_reconsume_times);
        v("bname", s.bname);
    }

    /// The header for rmq::SendBackArgs (MQClientAPIImpl.consumerSendMessageBack): msgId is the message's
    /// msg_id() (UNIQ_KEY if present), originTopic its topic.
    static ConsumerSendMsgBackRequestHeader from(const SendBackArgs& args,
                                                 std::optional<std::string> bname = {}) {
        ConsumerSendMsgBackRequestHeader h;
        h.offset = args.message.commit_log_offset();
        h.group = args.group;
        h.delay_level = args.delay_level;
        h.origin_msg_id = args.message.msg_id();
        h.origin_topic = args.message.topic();
        h.max_reconsume_times = args.max_reconsume_times;
        h.bname = std::move(bname);
        return h;
    }
};

/// SEND_MESSAGE (10) request header, V1 field names.
struct SendMessageRequestHeader {
    static constexpr std::string_view java_name = "SendMessageRequestHeader";
    std::string producer_group;
    std::string topic;
    std::string default_topic{"TBW102"};
    std::int32_t default_topic_queue_nums = 4;
    std::int32_t queue_id = 0;
    std::int32_t sys_flag = 0;
    std::int64_t born_timestamp = 0;
    std::int32_t flag = 0;
    std::optional<std::string> properties;
    std::optional<std::int32_t> reconsume_times;
    std::optional<bool> unit_mode;
    std::optional<std::int32_t> max_reconsume_times;
    std::optional<bool> batch;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("producerGroup", s.producer_group);
        v("topic", s.topic);
        v("defaultTopic", s.default_topic);
        v("defaultTopicQueueNums", s.default_topic_queue_nums);
        v("queueId", s.queue_id);
        v("sysFlag", s.sys_flag);
        v("bornTimestamp", s.born_timestamp);
        v("flag", s.flag);
        v("properties", s.properties);
        v("reconsumeTimes", s.reconsume_times);
        v("unitMode", s.unit_mode);
        v("maxReconsumeTimes", s.max_reconsume_times);
        v("batch", s.batch);
        v("bname", s.bname);
    }
};

/// SEND_MESSAGE_V2 (310) / SEND_BATCH_MESSAGE (320) request header: the V1 fields under one-letter keys
/// a..n (FastCodesHeader; `n` is the broker name).
struct SendMessageRequestHeaderV2 {
    static constexpr std::string_view java_name = "SendMessageRequestHeaderV2";
    SendMessageRequestHeader v1;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("a", s.v1.producer_group);
        v("b", s.v1.topic);
        v("c", s.v1.default_topic);
        v("d", s.v1.default_topic_queue_nums);
        v("e", s.v1.queue_id);
        v("f", s.v1.sys_flag);
        v("g", s.v1.born_timestamp);
        v("h", s.v1.flag);
        v("i", s.v1.properties);
        v("j", s.v1.reconsume_times);
        v("k", s.v1.unit_mode);
        v("l", s.v1.max_reconsume_times);
        v("m", s.v1.batch);
        v("n", s.v1.bname);
    }
};

/// SEND_MESSAGE(_V2) response header (FastCodesHeader).
struct SendMessageResponseHeader {
    static constexpr std::string_view java_name = "SendMessageResponseHeader";
    /// Offset message id (comma-separated for batches).
    std::string msg_id;
    std::int32_t queue_id = 0;
    std::int64_t queue_offset = 0;
    std::optional<std::string> transaction_id;
    std::optional<std::string> batch_uniq_id;
    /// 5.3 recall handle.
    std::optional<std::string> recall_handle;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("msgId", s.msg_id);
        v("queueId", s.queue_id);
        v("queueOffset", s.queue_offset);
        v("transactionId", s.transaction_id);
        v("batchUniqId", s.batch_uniq_id);
        v("recallHandle", s.recall_handle);
    }
};

/// GET_ROUTEINFO_BY_TOPIC (105) request header (to the NameServer).
struct GetRouteInfoRequestHeader {
    static constexpr std::string_view java_name = "GetRouteInfoRequestHeader";
    std::string topic;
    /// true: 4.9.4+ NameServers answer with standard JSON (quoted map keys).
    std::optional<bool> accept_standard_json_only;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("acceptStandardJsonOnly", s.accept_standard_json_only);
    }
};

/// RESET_CONSUMER_CLIENT_OFFSET (220) request header (broker to client, oneway; body: ResetOffsetBody).
struct ResetOffsetRequestHeader {
    static constexpr std::string_view java_name = "ResetOffsetRequestHeader";
    std::string topic;
    std::string group;
    std::int64_t timestamp = 0;
    bool is_force = false;
    /// 5.x: one queue only (-1 = all).
    std::optional<std::int32_t> queue_id;
    /// 5.x: explicit offset.
    std::optional<std::int64_t> offset;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("group", s.group);
        v("timestamp", s.timestamp);
        v("isForce", s.is_force);
        v("queueId", s.queue_id);
        v("offset", s.offset);
    }
};

/// GET_CONSUMER_RUNNING_INFO (307) request header (broker to client, answered with ConsumerRunningInfo).
struct GetConsumerRunningInfoRequestHeader {
    static constexpr std::string_view java_name = "GetConsumerRunningInfoRequestHeader";
    std::string consumer_group;
    std::string client_id;
    std::optional<bool> jstack_enable;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("clientId", s.client_id);
        v("jstackEnable", s.jstack_enable);
    }
};

/// CONSUME_MESSAGE_DIRECTLY (309) request header (broker to client; body: one message record).
struct ConsumeMessageDirectlyResultRequestHeader {
    static constexpr std::string_view java_name = "ConsumeMessageDirectlyResultRequestHeader";
    std::string consumer_group;
    std::optional<std::string> client_id;
    std::optional<std::string> msg_id;
    std::optional<std::string> broker_name;
    /// 5.x.
    std::optional<std::string> topic;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("clientId", s.client_id);
        v("msgId", s.msg_id);
        v("brokerName", s.broker_name);
        v("topic", s.topic);
    }
};

/// GET_CONSUMER_STATUS_FROM_CLIENT (221) request header (deprecated broker to client request).
struct GetConsumerStatusRequestHeader {
    static constexpr std::string_view java_name = "GetConsumerStatusRequestHeader";
    std::string topic;
    std::string group;
    std::optional<std::string> client_addr;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("group", s.group);
        v("clientAddr", s.client_addr);
    }
};

/// MessageSysFlag's transaction values, as END_TRANSACTION's commitOrRollback carries them.
inline std::int32_t transaction_sys_flag(LocalTransactionState state) noexcept {
    switch (state) {
    case LocalTransactionState::CommitMessage:
        return 0x8;  // TRANSACTION_COMMIT_TYPE
    case LocalTransactionState::RollbackMessage:
        return 0xC;  // TRANSACTION_ROLLBACK_TYPE
    default:
        return 0x0;  // TRANSACTION_NOT_TYPE
    }
}

/// END_TRANSACTION (37) request header (client to broker, oneway). `topic` and `bname` are 5.x fields
/// (a 4.x broker ignores them).
struct EndTransactionRequestHeader {
    static constexpr std::string_view java_name = "EndTransactionRequestHeader";
    std::optional<std::string> topic;
    std::string producer_group;
    std::int64_t tran_state_table_offset = 0;
    std::int64_t commit_log_offset = 0;
    /// MessageSysFlag TRANSACTION_COMMIT_TYPE (8), TRANSACTION_ROLLBACK_TYPE (12) or TRANSACTION_NOT_TYPE
    /// (0).
    std::int32_t commit_or_rollback = 0;
    bool from_transaction_check = false;
    std::string msg_id;
    std::optional<std::string> transaction_id;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("producerGroup", s.producer_group);
        v("tranStateTableOffset", s.tran_state_table_offset);
        v("commitLogOffset", s.commit_log_offset);
        v("commitOrRollback", s.commit_or_rollback);
        v("fromTransactionCheck", s.from_transaction_check);
        v("msgId", s.msg_id);
        v("transactionId", s.transaction_id);
        v("bname", s.bname);
    }

    /// The header for rmq::EndTransactionArgs (DefaultMQProducerImpl.endTransaction and
    /// checkTransactionState): empty strings are not sent.
    static EndTransactionRequestHeader from(const EndTransactionArgs& a) {
        EndTransactionRequestHeader h;
        if (!a.topic.empty()) {
            h.topic = a.topic;
        }
        h.producer_group = a.producer_group;
        h.tran_state_table_offset = a.tran_state_table_offset;
        h.commit_log_offset = a.commit_log_offset;
        h.commit_or_rollback = transaction_sys_flag(a.state);
        h.from_transaction_check = a.from_transaction_check;
        h.msg_id = a.msg_id;
        if (!a.transaction_id.empty()) {
            h.transaction_id = a.transaction_id;
        }
        if (!a.broker_name.empty()) {
            h.bname = a.broker_name;
        }
        return h;
    }
};

/// CHECK_TRANSACTION_STATE (39) request header (broker to client, oneway; body: the half message's record).
/// `topic` and `bname` are 5.x fields.
struct CheckTransactionStateRequestHeader {
    static constexpr std::string_view java_name = "CheckTransactionStateRequestHeader";
    std::optional<std::string> topic;
    std::int64_t tran_state_table_offset = 0;
    std::int64_t commit_log_offset = 0;
    std::optional<std::string> msg_id;
    std::optional<std::string> transaction_id;
    std::optional<std::string> offset_msg_id;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("tranStateTableOffset", s.tran_state_table_offset);
        v("commitLogOffset", s.commit_log_offset);
        v("msgId", s.msg_id);
        v("transactionId", s.transaction_id);
        v("offsetMsgId", s.offset_msg_id);
        v("bname", s.bname);
    }
};

}  // namespace rmq::remoting
