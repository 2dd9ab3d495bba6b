#pragma once

/// @file detail/trace/hooks.hpp
/// The trace records of a send (Java's SendMessageTraceHookImpl), of a listener call (before and after,
/// ConsumeMessageTraceHookImpl) and of a transaction's end (EndTransactionTraceHookImpl).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/trace.hpp>
#include <rmq/unique_id.hpp>

namespace rmq::detail::trace {

/// Java's String for an optional property: absent is null.
inline TraceText property_text(const Message& m, std::string_view name) {
    if (!m.has_property(name)) {
        return std::nullopt;
    }
    return std::string(m.property_view(name));
}

/// The region a record names: the broker's, else MixAll.DEFAULT_TRACE_REGION_ID (what Java's send path
/// assumes; the embedded broker names none).
inline std::string region_or_default(std::string_view region) {
    return std::string(region.empty() ? default_trace_region_id : region);
}

/// The store host (ip:port) an IPv4 offset message id names (its first 8 bytes), else `fallback`.
inline std::string store_host_of(std::string_view offset_msg_id, std::string fallback) {
    const std::string_view first = offset_msg_id.substr(0, offset_msg_id.find(','));
    if (first.size() != 32) {
        return fallback;
    }
    std::vector<std::uint8_t> bytes;
    try {
        bytes = hex_to_bytes(first.substr(0, 16));
    } catch (const InvalidArgument&) {
        return fallback;  // not an offset message id: the record names the broker instead
    }
    const unsigned port = (static_cast<unsigned>(bytes[4]) << 24U) |
                          (static_cast<unsigned>(bytes[5]) << 16U) | (static_cast<unsigned>(bytes[6]) << 8U) |
                          bytes[7];
    return fmt::format("{}.{}.{}.{}:{}", bytes[0], bytes[1], bytes[2], bytes[3], port);
}

/// DefaultMQProducerImpl.sendKernelImpl's message type: a half message, else a delayed one, else normal.
inline TraceMessageType send_message_type(const Message& m) {
    TraceMessageType t = TraceMessageType::NormalMsg;
    if (m.property_view(property::transaction_prepared) == "true") {
        t = TraceMessageType::TransMsgHalf;
    }
    if (m.has_property("__STARTDELIVERTIME") || m.has_property(property::delay_time_level)) {
        t = TraceMessageType::DelayMsg;
    }
    return t;
}

/// The Pub record of a send that got an answer (SendMessageTraceHookImpl): nullopt when the broker turned
/// tracing off for it (TRACE_ON=false). `m` is what was sent (a batch: its first message, with no tags and
/// keys, `body_length` the encoded batch), `began` the wall time the attempt started.
inline std::optional<TraceContext> pub_record(const Message& m,
                                              std::int32_t body_length,
                                              bool batch,
                                              const SendResult& r,
                                              std::string group,
                                              std::int64_t began,
                                              std::int64_t now) {
    if (!r.trace_on) {
        return std::nullopt;
    }
    TraceContext c;
    c.trace_type = TraceType::Pub;
    c.time_stamp = began;
    c.group_name = std::move(group);
    c.region_id = region_or_default(r.region_id);
    c.cost_time = static_cast<std::int32_t>(now - began);
    c.is_success = r.status == SendStatus::SendOk;
    TraceBean& b = c.trace_beans.emplace_back();
    b.topic = m.topic();
    b.tags = batch ? std::nullopt : property_text(m, property::tags);
    b.keys = batch ? std::nullopt : property_text(m, property::keys);
    b.store_host = store_host_of(r.offset_msg_id, r.message_queue.broker_name);
    b.body_length = body_length;
    b.msg_type = send_message_type(m);
    b.msg_id = r.msg_id;
    b.offset_msg_id = r.offset_msg_id;
    b.store_time = began + c.cost_time / 2;
    return c;
}

/// The SubBefore record of a listener call (one bean per traced message; TRACE_ON=false messages are left
/// out): nullopt when no message is traced.
inline std::optional<TraceContext> sub_before_record(std::span<const MessageExt> msgs,
                                                     const std::string& group,
                                                     std::string request_id,
                                                     std::int64_t now) {
    TraceContext c;
    c.trace_type = TraceType::SubBefore;
    c.group_name = group;
    c.request_id = std::move(request_id);
    c.time_stamp = now;
    for (const MessageExt& msg : msgs) {
        if (msg.property_view(property::trace_switch) == "false") {
            continue;
        }
        TraceBean& b = c.trace_beans.emplace_back();
        b.topic = msg.topic();
        b.msg_id = msg.msg_id();
        b.tags = property_text(msg, property::tags);
        b.keys = property_text(msg, property::keys);
        b.store_time = msg.store_timestamp();
        b.body_length = msg.store_size();
        b.retry_times = msg.reconsume_times();
        c.region_id = region_or_default(msg.property_view(property::msg_region));
    }
    if (c.trace_beans.empty()) {
        return std::nullopt;
    }
    return c;
}

/// Java's ConsumeReturnType of a listener call (a SubAfter record's context code): the push consumer's and
/// the POP mode's ConsumeRequest.run decide it alike.
inline ConsumeReturnType consume_return_type(bool answered,
                                             bool success,
                                             std::int64_t rt_millis,
                                             std::int64_t consume_timeout_minutes) noexcept {
    if (!answered) {
        return ConsumeReturnType::Exception;
    }
    if (rt_millis >= consume_timeout_minutes * 60 * 1000) {
        return ConsumeReturnType::TimeOut;
    }
    return success ? ConsumeReturnType::Success : ConsumeReturnType::Failed;
}

/// The SubAfter record joining `before` (same request id and beans): the call's cost per message.
inline TraceContext sub_after_record(const TraceContext& before,
                                     bool success,
                                     ConsumeReturnType how,
                                     std::size_t call_size,
                                     std::int64_t now) {
    TraceContext c;
    c.trace_type = TraceType::SubAfter;
    c.region_id = before.region_id;
    c.group_name = before.group_name;
    c.request_id = before.request_id;
    c.access_channel = AccessChannel::Local;
    c.is_success = success;
    c.time_stamp = now;
    c.cost_time = static_cast<std::int32_t>((now - before.time_stamp) /
                                            static_cast<std::int64_t>(call_size == 0 ? 1 : call_size));
    c.trace_beans = before.trace_beans;
    c.context_code = static_cast<std::int32_t>(how);
    return c;
}

/// The EndTransaction record of a transaction's end (EndTransactionTraceHookImpl).
inline TraceContext end_transaction_record(const Message& m,
                                           const std::string& group,
                                           const std::string& broker_addr,
                                           const std::string& msg_id,
                                           const std::string& transaction_id,
                                           LocalTransactionState state,
                                           bool from_check,
                                           std::int64_t now) {
    TraceContext c;
    c.trace_type = TraceType::EndTransaction;
    c.group_name = group;
    c.region_id = region_or_default(m.property_view(property::msg_region));
    c.time_stamp = now;
    TraceBean& b = c.trace_beans.emplace_back();
    b.topic = m.topic();
    b.tags = property_text(m, property::tags);
    b.keys = property_text(m, property::keys);
    b.store_host = broker_addr;
    b.msg_type = TraceMessageType::TransMsgCommit;
    b.msg_id = msg_id;
    b.transaction_state = state;
    b.transaction_id = transaction_id;
    b.from_transaction_check = from_check;
    return c;
}

}  // namespace rmq::detail::trace
