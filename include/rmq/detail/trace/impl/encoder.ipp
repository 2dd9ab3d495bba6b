#pragma once

/// @file detail/trace/impl/encoder.ipp
/// Java's TraceDataEncoder: rmq::encode_trace_context and rmq::decode_trace_data.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/trace.hpp>

#include <rmq/detail/util/java_string.hpp>

namespace rmq {

namespace detail::trace {

inline constexpr char content_splitor = '\x01';
inline constexpr char field_splitor = '\x02';

/// StringBuilder.append(String): null is the text "null".
inline void append_text(std::string& out, const TraceText& text) {
    out += text ? std::string_view(*text) : std::string_view("null");
}

inline std::string_view java_bool(bool b) noexcept {
    return b ? "true" : "false";
}

inline std::string_view transaction_state_name(LocalTransactionState s) noexcept {
    switch (s) {
    case LocalTransactionState::CommitMessage:
        return "COMMIT_MESSAGE";
    case LocalTransactionState::RollbackMessage:
        return "ROLLBACK_MESSAGE";
    default:
        return "UNKNOW";
    }
}

/// Java's String.split(String.valueOf(c)): trailing empty pieces are dropped.
inline std::vector<std::string_view> java_split(std::string_view text, char c) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        const std::size_t at = text.find(c, start);
        if (at == std::string_view::npos) {
            parts.push_back(text.substr(start));
            break;
        }
        parts.push_back(text.substr(start, at - start));
        start = at + 1;
    }
    if (text.empty()) {
        return parts;  // "".split(x) is [""]
    }
    while (!parts.empty() && parts.back().empty()) {
        parts.pop_back();
    }
    return parts;
}

template <class Int>
Int parse_int(std::string_view field, std::string_view what) {
    Int v{};
    const auto* end = field.data() + field.size();
    const auto r = std::from_chars(field.data() + (field.starts_with('+') ? 1 : 0), end, v);
    if (field.empty() || r.ec != std::errc() || r.ptr != end) {
        throw InvalidArgument(fmt::format("trace record: {} is not a number: \"{}\"", what, field));
    }
    return v;
}

inline TraceMessageType parse_msg_type(std::string_view field) {
    const auto n = parse_int<int>(field, "msgType");
    if (n < 0 || n > static_cast<int>(TraceMessageType::OrderMsg)) {
        throw InvalidArgument(fmt::format("trace record: no MessageType of ordinal {}", n));
    }
    return static_cast<TraceMessageType>(n);
}

inline LocalTransactionState parse_transaction_state(std::string_view field) {
    for (const auto s : {LocalTransactionState::CommitMessage,
                         LocalTransactionState::RollbackMessage,
                         LocalTransactionState::Unknow}) {
        if (field == transaction_state_name(s)) {
            return s;
        }
    }
    throw InvalidArgument(fmt::format("trace record: no LocalTransactionState named \"{}\"", field));
}

/// The fields of one record, with Java's ArrayIndexOutOfBoundsException as rmq::InvalidArgument.
class Fields {
public:
    explicit Fields(std::vector<std::string_view> f)
        : f_(std::move(f)) {}

    [[nodiscard]] std::size_t size() const noexcept { return f_.size(); }

    [[nodiscard]] std::string_view operator[](std::size_t i) const {
        if (i >= f_.size()) {
            throw InvalidArgument(fmt::format("trace record {} has {} fields, field {} is missing",
                                              f_.empty() ? std::string_view("(empty)") : f_[0],
                                              f_.size(),
                                              i));
        }
        return f_[i];
    }

    [[nodiscard]] std::string text(std::size_t i) const { return std::string((*this)[i]); }

private:
    std::vector<std::string_view> f_;
};

RMQ_DECL TraceContext decode_pub(const Fields& line);
RMQ_DECL TraceContext decode_sub_before(const Fields& line);
RMQ_DECL TraceContext decode_sub_after(const Fields& line);
RMQ_DECL TraceContext decode_end_transaction(const Fields& line);
RMQ_DECL void encode_pub(std::string& sb, const TraceContext& ctx);
RMQ_DECL void encode_sub(std::string& sb, const TraceContext& ctx);
RMQ_DECL void encode_end_transaction(std::string& sb, const TraceContext& ctx);

}  // namespace detail::trace

RMQ_DECL std::string_view trace_type_name(TraceType t) noexcept {
    switch (t) {
    case TraceType::Pub:
        return "Pub";
    case TraceType::Recall:
        return "Recall";
    case TraceType::SubBefore:
        return "SubBefore";
    case TraceType::SubAfter:
        return "SubAfter";
    default:
        return "EndTransaction";
    }
}

RMQ_DECL void detail::trace::encode_pub(std::string& sb, const TraceContext& ctx) {
    const TraceBean& bean = ctx.trace_beans.front();
    const auto sep = [&] {
        sb += content_splitor;
    };
    sb += "Pub";
    sep();
    sb += fmt::to_string(ctx.time_stamp);
    sep();
    append_text(sb, ctx.region_id);
    sep();
    append_text(sb, ctx.group_name);
    sep();
    append_text(sb, bean.topic);
    sep();
    append_text(sb, bean.msg_id);
    sep();
    append_text(sb, bean.tags);
    sep();
    append_text(sb, bean.keys);
    sep();
    append_text(sb, bean.store_host);
    sep();
    sb += fmt::format("{}{}{}{}{}{}",
                      bean.body_length,
                      content_splitor,
                      ctx.cost_time,
                      content_splitor,
                      static_cast<int>(bean.msg_type),
                      content_splitor);
    append_text(sb, bean.offset_msg_id);
    sep();
    sb += java_bool(ctx.is_success);
    sb += field_splitor;
}

RMQ_DECL void detail::trace::encode_sub(std::string& sb, const TraceContext& ctx) {
    const auto sep = [&] {
        sb += content_splitor;
    };
    for (const TraceBean& bean : ctx.trace_beans) {
        if (ctx.trace_type == TraceType::SubBefore) {
            sb += fmt::format("SubBefore{}{}{}", content_splitor, ctx.time_stamp, content_splitor);
            append_text(sb, ctx.region_id);
            sep();
            append_text(sb, ctx.group_name);
            sep();
            append_text(sb, ctx.request_id);
            sep();
            append_text(sb, bean.msg_id);
            sep();
            sb += fmt::to_string(bean.retry_times);
            sep();
            append_text(sb, bean.keys);
        } else {
            sb += "SubAfter";
            sep();
            append_text(sb, ctx.request_id);
            sep();
            append_text(sb, bean.msg_id);
            sep();
            sb += fmt::format(
                "{}{}{}{}", ctx.cost_time, content_splitor, java_bool(ctx.is_success), content_splitor);
            append_text(sb, bean.keys);
            sep();
            sb += fmt::to_string(ctx.context_code);
            sep();
            if (ctx.access_channel != AccessChannel::Cloud) {
                sb += fmt::to_string(ctx.time_stamp);
                sep();
                append_text(sb, ctx.group_name);
            }
        }
        sb += field_splitor;
    }
}

RMQ_DECL void detail::trace::encode_end_transaction(std::string& sb, const TraceContext& ctx) {
    const TraceBean& bean = ctx.trace_beans.front();
    const auto sep = [&] {
        sb += content_splitor;
    };
    sb += fmt::format("EndTransaction{}{}{}", content_splitor, ctx.time_stamp, content_splitor);
    append_text(sb, ctx.region_id);
    sep();
    append_text(sb, ctx.group_name);
    sep();
    append_text(sb, bean.topic);
    sep();
    append_text(sb, bean.msg_id);
    sep();
    append_text(sb, bean.tags);
    sep();
    append_text(sb, bean.keys);
    sep();
    append_text(sb, bean.store_host);
    sep();
    sb += fmt::to_string(static_cast<int>(bean.msg_type));
    sep();
    append_text(sb, bean.transaction_id);
    sep();
    sb += transaction_state_name(bean.transaction_state);
    sep();
    sb += java_bool(bean.from_transaction_check);
    sb += field_splitor;
}

RMQ_DECL TraceTransferBean encode_trace_context(const TraceContext& ctx) {
    if (ctx.trace_beans.empty()) {
        throw InvalidArgument(
            fmt::format("a {} trace record needs at least one bean", trace_type_name(ctx.trace_type)));
    }
    TraceTransferBean out;
    out.trans_data.reserve(256);
    switch (ctx.trace_type) {
    case TraceType::Pub:
        detail::trace::encode_pub(out.trans_data, ctx);
        break;
    case TraceType::SubBefore:
    case TraceType::SubAfter:
        detail::trace::encode_sub(out.trans_data, ctx);
        break;
    case TraceType::EndTransaction:
        detail::trace::encode_end_transaction(out.trans_data, ctx);
        break;
    default:
        break;
    }
    for (const TraceBean& bean : ctx.trace_beans) {
        out.trans_key.insert(bean.msg_id ? *bean.msg_id : std::string("null"));
        if (bean.keys && !bean.keys->empty()) {
            for (const auto key : detail::trace::java_split(*bean.keys, ' ')) {
                out.trans_key.emplace(key);
            }
        }
    }
    return out;
}

RMQ_DECL TraceContext detail::trace::decode_pub(const Fields& line) {
    TraceContext c;
    c.trace_type = TraceType::Pub;
    c.time_stamp = parse_int<std::int64_t>(line[1], "timeStamp");
    c.region_id = line.text(2);
    c.group_name = line.text(3);
    TraceBean bean;
    bean.topic = line.text(4);
    bean.msg_id = line.text(5);
    bean.tags = line.text(6);
    bean.keys = line.text(7);
    bean.store_host = line.text(8);
    bean.body_length = parse_int<std::int32_t>(line[9], "bodyLength");
    c.cost_time = parse_int<std::int32_t>(line[10], "costTime");
    bean.msg_type = parse_msg_type(line[11]);
    if (line.size() == 13) {
        c.is_success = parse_java_boolean(line[12]);
    } else if (line.size() >= 14) {
        bean.offset_msg_id = line.text(12);
        c.is_success = parse_java_boolean(line[13]);
        if (line.size() >= 15) {
            bean.client_host = line.text(14);
        }
    }
    c.trace_beans.push_back(std::move(bean));
    return c;
}

RMQ_DECL TraceContext detail::trace::decode_sub_before(const Fields& line) {
    TraceContext c;
    c.trace_type = TraceType::SubBefore;
    c.time_stamp = parse_int<std::int64_t>(line[1], "timeStamp");
    c.region_id = line.text(2);
    c.group_name = line.text(3);
    c.request_id = line.text(4);
    TraceBean bean;
    bean.msg_id = line.text(5);
    bean.retry_times = parse_int<std::int32_t>(line[6], "retryTimes");
    bean.keys = line.text(7);
    c.trace_beans.push_back(std::move(bean));
    return c;
}

RMQ_DECL TraceContext detail::trace::decode_sub_after(const Fields& line) {
    TraceContext c;
    c.trace_type = TraceType::SubAfter;
    c.request_id = line.text(1);
    TraceBean bean;
    bean.msg_id = line.text(2);
    bean.keys = line.text(5);
    c.cost_time = parse_int<std::int32_t>(line[3], "costTime");
    c.is_success = parse_java_boolean(line[4]);
    if (line.size() >= 7) {
        c.context_code = parse_int<std::int32_t>(line[6], "contextCode");
    }
    if (line.size() >= 9) {
        c.time_stamp = parse_int<std::int64_t>(line[7], "timeStamp");
        c.group_name = line.text(8);
    }
    c.trace_beans.push_back(std::move(bean));
    return c;
}

RMQ_DECL TraceContext detail::trace::decode_end_transaction(const Fields& line) {
    TraceContext c;
    c.trace_type = TraceType::EndTransaction;
    c.time_stamp = parse_int<std::int64_t>(line[1], "timeStamp");
    c.region_id = line.text(2);
    c.group_name = line.text(3);
    TraceBean bean;
    bean.topic = line.text(4);
    bean.msg_id = line.text(5);
    bean.tags = line.text(6);
    bean.keys = line.text(7);
    bean.store_host = line.text(8);
    bean.msg_type = parse_msg_type(line[9]);
    bean.transaction_id = line.text(10);
    bean.transaction_state = parse_transaction_state(line[11]);
    bean.from_transaction_check = parse_java_boolean(line[12]);
    c.trace_beans.push_back(std::move(bean));
    return c;
}

RMQ_DECL std::vector<TraceContext> decode_trace_data(std::string_view data) {
    using namespace detail::trace;
    std::vector<TraceContext> out;
    if (data.empty()) {
        return out;
    }
    for (const auto record : java_split(data, field_splitor)) {
        const Fields line(java_split(record, content_splitor));
        const std::string_view type = line[0];
        if (type == "Pub") {
            out.push_back(decode_pub(line));
        } else if (type == "SubBefore") {
            out.push_back(decode_sub_before(line));
        } else if (type == "SubAfter") {
            out.push_back(decode_sub_after(line));
        } else if (type == "EndTransaction") {
            out.push_back(decode_end_transaction(line));
        }
    }
    return out;
}

}  // namespace rmq
