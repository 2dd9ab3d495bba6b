#pragma once

/// @file impl/pop.ipp
/// Definitions of pop.hpp.

#include <array>
#include <charconv>
#include <cstddef>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/topic.hpp>

namespace rmq {

namespace detail {

template <class Int>
Int receipt_number(std::string_view extra_info, std::string_view field, std::string_view text) {
    Int v{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
        throw InvalidArgument(
            fmt::format(R"(POP receipt "{}": {} "{}" is not a number)", extra_info, field, text));
    }
    return v;
}

}  // namespace detail

RMQ_DECL PopReceipt PopReceipt::parse(std::string_view extra_info) {
    // MessageConst.KEY_SEPARATOR is one space; Java's split drops trailing empty fields only.
    std::array<std::string_view, 8> f{};
    std::size_t n = 0;
    std::size_t start = 0;
    while (n < f.size()) {
        const std::size_t sp = extra_info.find(' ', start);
        f[n++] = extra_info.substr(start, sp == std::string_view::npos ? std::string_view::npos : sp - start);
        if (sp == std::string_view::npos) {
            break;
        }
        start = sp + 1;
    }
    if (n < f.size()) {
        throw InvalidArgument(fmt::format(
            R"(POP receipt "{}" has {} fields, 8 expected (ckQueueOffset popTime invisibleTime reviveQid )"
            "topicMark brokerName queueId queueOffset)",
            extra_info,
            n));
    }
    PopReceipt r;
    r.ck_queue_offset = detail::receipt_number<std::int64_t>(extra_info, "ckQueueOffset", f[0]);
    r.pop_time = detail::receipt_number<std::int64_t>(extra_info, "popTime", f[1]);
    r.invisible_time = detail::receipt_number<std::int64_t>(extra_info, "invisibleTime", f[2]);
    r.revive_qid = detail::receipt_number<std::int32_t>(extra_info, "reviveQid", f[3]);
    r.retry = f[4] == "1" || f[4] == "2";
    r.retry_v2 = f[4] == "2";
    r.broker_name = std::string(f[5]);
    r.queue_id = detail::receipt_number<std::int32_t>(extra_info, "queueId", f[6]);
    r.queue_offset = detail::receipt_number<std::int64_t>(extra_info, "queueOffset", f[7]);
    return r;
}

RMQ_DECL PopReceipt PopReceipt::of(const MessageExt& msg) {
    const auto ck = msg.property_view(property::pop_ck);
    if (ck.empty()) {
        throw InvalidArgument(fmt::format(
            "message {} of {} has no POP_CK receipt: it was not received by POP", msg.msg_id(), msg.topic()));
    }
    return parse(ck);
}

RMQ_DECL std::string PopReceipt::to_string() const {
    return fmt::format("{} {} {} {} {} {} {} {}",
                       ck_queue_offset,
                       pop_time,
                       invisible_time,
                       revive_qid,
                       topic_mark(),
                       broker_name,
                       queue_id,
                       queue_offset);
}

RMQ_DECL std::string PopReceipt::real_topic(std::string_view topic, std::string_view group) const {
    if (retry_v2) {
        return pop_retry_topic_v2(topic, group);
    }
    return retry ? pop_retry_topic(topic, group) : std::string(topic);
}

RMQ_DECL std::string pop_retry_topic(std::string_view topic, std::string_view group) {
    return fmt::format("{}{}_{}", retry_group_topic_prefix, group, topic);
}

RMQ_DECL std::string pop_retry_topic_v2(std::string_view topic, std::string_view group) {
    return fmt::format("{}{}+{}", retry_group_topic_prefix, group, topic);
}

RMQ_DECL char pop_topic_mark(std::string_view topic) noexcept {
    if (!is_retry_topic(topic)) {
        return '0';
    }
    return topic.find('+') != std::string_view::npos ? '2' : '1';
}

}  // namespace rmq
