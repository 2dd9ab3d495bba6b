#pragma once

/// @file trace.hpp
/// Message traces (Java's org.apache.rocketmq.client.trace): the records a traced producer and push consumer
/// write to the trace topic (TraceContext, TraceBean), Java's TraceDataEncoder text format, and the
/// dispatcher's counters. Turn tracing on with ProducerConfig / ConsumerConfig::enable_msg_trace;
/// docs/trace.md.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/protocol.hpp>

namespace rmq {

/// TopicValidator.RMQ_SYS_TRACE_TOPIC: where traces go unless customized_trace_topic names another topic.
inline constexpr std::string_view rmq_sys_trace_topic = "RMQ_SYS_TRACE_TOPIC";

/// MixAll.DEFAULT_TRACE_REGION_ID: the region of a record whose broker named none.
inline constexpr std::string_view default_trace_region_id = "DefaultRegion";

/// Java's TraceType, in Java's order.
enum class TraceType { Pub, Recall, SubBefore, SubAfter, EndTransaction };

/// Java's MessageType; a record carries its ordinal.
enum class TraceMessageType { NormalMsg, TransMsgHalf, TransMsgCommit, DelayMsg, OrderMsg };

/// Java's AccessChannel: a CLOUD SubAfter record leaves out its time stamp and group.
enum class AccessChannel { Local, Cloud };

/// Java's ConsumeReturnType, a SubAfter record's context code (its ordinal).
enum class ConsumeReturnType { Success, TimeOut, Exception, ReturnNull, Failed };

/// A Java String field: std::nullopt is Java's null, which the encoder writes as the text "null" (a message
/// without tags is traced with the tags "null", as by the Java client).
using TraceText = std::optional<std::string>;

/// Java's TraceBean: one message of a record.
struct TraceBean {
    TraceText topic = std::string();
    TraceText msg_id = std::string();
    TraceText offset_msg_id = std::string();
    TraceText tags = std::string();
    TraceText keys = std::string();
    /// The broker address the message was sent to (host:port).
    TraceText store_host = std::string();
    TraceText client_host = std::string();
    std::int64_t store_time = 0;
    std::int32_t retry_times = 0;
    std::int32_t body_length = 0;
    TraceMessageType msg_type = TraceMessageType::NormalMsg;
    LocalTransactionState transaction_state = LocalTransactionState::Unknow;
    TraceText transaction_id = std::string();
    bool from_transaction_check = false;
};

/// Java's TraceContext: one record (Pub, EndTransaction: one bean; SubBefore, SubAfter: one per message of
/// the listener call).
struct TraceContext {
    TraceType trace_type = TraceType::Pub;
    /// Wall milliseconds: when the send or the listener call began (SubAfter: when it ended).
    std::int64_t time_stamp = 0;
    TraceText region_id = std::string();
    TraceText region_name = std::string();
    TraceText group_name = std::string();
    /// Milliseconds, per message of the call.
    std::int32_t cost_time = 0;
    bool is_success = true;
    /// Joins a SubBefore record with its SubAfter record.
    TraceText request_id = std::string();
    /// A SubAfter record's rmq::ConsumeReturnType ordinal.
    std::int32_t context_code = 0;
    AccessChannel access_channel = AccessChannel::Local;
    std::vector<TraceBean> trace_beans;
};

/// Java's TraceTransferBean: a record's text and the keys the trace message is indexed by (the message
/// ids and keys of its beans).
struct TraceTransferBean {
    std::string trans_data;
    std::set<std::string> trans_key;
};

/// Java's TraceDataEncoder.encoderFromContextBean: the record's text (fields separated by char 1, each record
/// ended by char 2), byte for byte, and its keys. A Recall record (rmq sends none) encodes to nothing.
/// Throws rmq::InvalidArgument for a record without beans.
TraceTransferBean encode_trace_context(const TraceContext& ctx);

/// Java's TraceDataEncoder.decoderFromTraceDataString: the records of a trace message's body, fields the
/// record does not carry left at their defaults; unknown record types are skipped. Fields are split as
/// Java's String.split does (trailing empty fields dropped), so a record Java cannot read either (a
/// SubBefore record with empty keys) throws rmq::InvalidArgument naming it, as do malformed numbers.
std::vector<TraceContext> decode_trace_data(std::string_view data);

/// Java's name of a trace type ("Pub", "SubBefore", ...).
std::string_view trace_type_name(TraceType t) noexcept;

/// What a client's trace dispatcher did since start. Thread-safe snapshot.
struct TraceStats {
    /// Records queued for the trace topic.
    std::uint64_t appended = 0;
    /// Records dropped because the queue was full (Java's discardCount: logged, never blocking).
    std::uint64_t dropped = 0;
    /// Trace messages stored by the broker.
    std::uint64_t messages_sent = 0;
    /// Trace messages whose send failed (logged; their records are lost).
    std::uint64_t messages_failed = 0;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/trace/impl/encoder.ipp>
#endif
