#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/remoting/headers/pop.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/topic.hpp>

namespace rmq::remoting {

namespace detail {

/// "mark queueId value" entries of startOffsetInfo / msgOffsetInfo, ';'-separated, keyed "mark@queueId"
/// (ExtraInfoUtil.parseStartOffsetInfo / parseMsgOffsetInfo); the value's text is left to the caller.
inline std::map<std::string, std::string, std::less<>> parse_offset_info(std::string_view info,
                                                                         std::string_view field) {
    std::map<std::string, std::string, std::less<>> out;
    std::size_t start = 0;
    while (start <= info.size() && !info.empty()) {
        const std::size_t end = std::min(info.find(';', start), info.size());
        const std::string_view one = info.substr(start, end - start);
        const std::size_t a = one.find(' ');
        const std::size_t b = a == std::string_view::npos ? a : one.find(' ', a + 1);
        if (b == std::string_view::npos || one.find(' ', b + 1) != std::string_view::npos) {
            throw CodecError(fmt::format(
                R"(PopMessageResponseHeader: {} entry "{}" is not "topicMark queueId value")", field, one));
        }
        auto key = fmt::format("{}@{}", one.substr(0, a), one.substr(a + 1, b - a - 1));
        if (!out.emplace(std::move(key), std::string(one.substr(b + 1))).second) {
            throw CodecError(fmt::format(R"(PopMessageResponseHeader: {} repeats queue "{}")", field, one));
        }
        start = end + 1;
    }
    return out;
}

inline std::int64_t offset_number(std::string_view text, std::string_view field) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
        throw CodecError(
            fmt::format(R"(PopMessageResponseHeader: {} value "{}" is not a number)", field, text));
    }
    return v;
}

/// The nth offset of a comma-separated list.
inline std::int64_t nth_offset(std::string_view list, std::size_t n, std::string_view key) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < n; ++i) {
        start = list.find(',', start);
        if (start == std::string_view::npos) {
            throw CodecError(fmt::format(
                "PopMessageResponseHeader: msgOffsetInfo of {} lists fewer offsets than messages", key));
        }
        ++start;
    }
    const std::size_t end = std::min(list.find(',', start), list.size());
    return offset_number(list.substr(start, end - start), "msgOffsetInfo");
}

/// "mark@queueId" of a popped message: a receipt the broker set says whether it came from a pop retry topic
/// (and which form), else its topic does (MQClientAPIImpl.buildQueueOffsetSortedMap).
inline std::string queue_key(const MessageExt& m) {
    char mark = pop_topic_mark(m.topic());
    if (const auto ck = m.property_view(property::pop_ck); !ck.empty()) {
        mark = PopReceipt::parse(ck).topic_mark();
    }
    return fmt::format("{}@{}", mark, m.queue_id());
}

/// The consumed count an orderly pop's orderCountInfo gives the message at `offset` of queue `key`
/// ("mark@queueId"): its own entry "mark qo<queueId>%<offset> count", else the queue's "mark queueId count"
/// (older brokers), as processPopResponse reads it; 0 when neither is there.
inline std::int32_t order_count(const std::map<std::string, std::string, std::less<>>& counts,
                                std::string_view key,
                                std::int32_t queue_id,
                                std::int64_t offset) {
    auto it = counts.find(fmt::format("{}@qo{}%{}", key.front(), queue_id, offset));
    if (it == counts.end()) {
        it = counts.find(key);
    }
    if (it == counts.end()) {
        return 0;
    }
    return static_cast<std::int32_t>(offset_number(it->second, "orderCountInfo"));
}

/// Gives each message without a receipt its receipt (the processPopResponse loop for 5.x brokers that send
/// startOffsetInfo, and the 4.x-era form without it); for an orderly pop (`order`), also its reconsume times
/// from orderCountInfo.
inline void attach_receipts(std::vector<MessageExt>& msgs,
                            const PopMessageResponseHeader& h,
                            std::string_view broker_name,
                            bool order) {
    const auto starts = parse_offset_info(h.start_offset_info.value_or(""), "startOffsetInfo");
    const auto offsets = parse_offset_info(h.msg_offset_info.value_or(""), "msgOffsetInfo");
    const auto counts = order ? parse_offset_info(h.order_count_info.value_or(""), "orderCountInfo")
                              : std::map<std::string, std::string, std::less<>>{};
    std::map<std::string, std::size_t, std::less<>> seen;  // messages so far per queue key
    std::map<std::string, std::int64_t, std::less<>> first_offset;
    for (auto& m : msgs) {
        const std::string key = queue_key(m);
        const std::size_t index = seen[key]++;
        if (m.has_property(property::pop_ck)) {
            continue;
        }
        PopReceipt r;
        r.pop_time = h.pop_time;
        r.invisible_time = h.invisible_time;
        r.revive_qid = h.revive_qid;
        r.retry = key.front() != '0';
        r.retry_v2 = key.front() == '2';
        r.broker_name = std::string(broker_name);
        r.queue_id = m.queue_id();
        if (h.start_offset_info) {
            const auto s = starts.find(key);
            const auto o = offsets.find(key);
            if (s == starts.end() || o == offsets.end()) {
                throw CodecError(
                    fmt::format("PopMessageResponseHeader: no offset info for queue {} of a message", key));
            }
            r.ck_queue_offset = offset_number(s->second, "startOffsetInfo");
            r.queue_offset = nth_offset(o->second, index, key);
            if (const auto count = order_count(counts, key, m.queue_id(), m.queue_offset()); count > 0) {
                m.set_reconsume_times(count);
            }
        } else {
            // No startOffsetInfo: the check point starts at the first message of the queue in the answer.
            r.ck_queue_offset = first_offset.try_emplace(key, m.queue_offset()).first->second;
            r.queue_offset = m.queue_offset();
        }
        m.set_property(property::pop_ck, r.to_string());
    }
}

}  // namespace detail

RMQ_DECL PopMessageRequestHeader PopMessageRequestHeader::from(const PopArgs& args, std::int64_t born_time) {
    PopMessageRequestHeader h;
    h.consumer_group = args.consumer_group;
    h.topic = args.topic;
    h.queue_id = args.queue_id;
    h.max_msg_nums = args.max_msg_nums;
    h.invisible_time = args.invisible_time_millis;
    h.poll_time = args.poll_time_millis;
    h.born_time = born_time;
    h.init_mode = static_cast<std::int32_t>(args.init_mode);
    h.exp_type = args.expression_type;
    h.exp = args.expression;
    h.order = args.order;
    if (!args.broker_name.empty()) {
        h.bname = args.broker_name;
    }
    return h;
}

RMQ_DECL AckMessageRequestHeader AckMessageRequestHeader::from(const AckArgs& args) {
    const auto r = PopReceipt::parse(args.extra_info);
    AckMessageRequestHeader h;
    h.consumer_group = args.consumer_group;
    h.topic = r.real_topic(args.topic, args.consumer_group);
    h.queue_id = r.queue_id;
    h.extra_info = args.extra_info;
    h.offset = r.queue_offset;
    h.bname = r.broker_name;
    return h;
}

RMQ_DECL ChangeInvisibleTimeRequestHeader
ChangeInvisibleTimeRequestHeader::from(const ChangeInvisibleTimeArgs& args) {
    const auto r = PopReceipt::parse(args.extra_info);
    ChangeInvisibleTimeRequestHeader h;
    h.consumer_group = args.consumer_group;
    h.topic = r.real_topic(args.topic, args.consumer_group);
    h.queue_id = r.queue_id;
    h.extra_info = args.extra_info;
    h.offset = r.queue_offset;
    h.invisible_time = args.invisible_time_millis;
    h.bname = r.broker_name;
    return h;
}

RMQ_DECL void check_pop_answer(const Command& response, std::string_view what) {
    if (response.code == response_code::success) {
        return;
    }
    const std::string remark = response.remark.value_or("(no remark)");
    if (response.code == response_code::request_code_not_supported) {
        throw PopUnsupported(response.code,
                             fmt::format("{}: the broker does not support POP consumption (RocketMQ 5.x "
                                         "needed; it answered REQUEST_CODE_NOT_SUPPORTED: {})",
                                         what,
                                         remark));
    }
    if (response.code == response_code::no_permission) {
        throw AccessDenied(response.code, fmt::format("{}: {}", what, remark));
    }
    throw BrokerError(response.code, fmt::format("{}: {}", what, remark));
}

RMQ_DECL PopResult to_pop_result(const Command& response,
                                 std::string_view broker_name,
                                 std::string_view topic,
                                 bool order) {
    PopResult result;
    switch (response.code) {
    case response_code::success:
        result.status = PopStatus::Found;
        break;
    case response_code::polling_full:
        result.status = PopStatus::PollingFull;
        break;
    case response_code::polling_timeout:
    case response_code::pull_not_found:
        result.status = PopStatus::PollingNotFound;
        break;
    default:
        check_pop_answer(response, fmt::format("POP_MESSAGE of {} at broker {}", topic, broker_name));
    }
    const auto h = header_of<PopMessageResponseHeader>(response);
    result.rest_num = h.rest_num;
    if (result.status != PopStatus::Found) {
        return result;
    }
    result.pop_time = h.pop_time;
    result.invisible_time = h.invisible_time;
    result.msg_found_list = decode_messages(response.body_bytes());
    detail::attach_receipts(result.msg_found_list, h, broker_name, order);
    const std::string first_pop = fmt::format("{}", h.pop_time);
    for (auto& m : result.msg_found_list) {
        if (!m.has_property(property::first_pop_time)) {
            m.set_property(property::first_pop_time, first_pop);
        }
        m.set_broker_name(std::string(broker_name));
        m.set_topic(std::string(topic));
    }
    return result;
}

RMQ_DECL std::string changed_receipt(const Command& response,
                                     const ChangeInvisibleTimeRequestHeader& request) {
    check_pop_answer(
        response, fmt::format("CHANGE_MESSAGE_INVISIBLETIME of {} offset {}", request.topic, request.offset));
    const auto h = header_of<ChangeInvisibleTimeResponseHeader>(response);
    auto r = PopReceipt::parse(request.extra_info);
    r.ck_queue_offset = request.offset;
    r.pop_time = h.pop_time;
    r.invisible_time = h.invisible_time;
    r.revive_qid = h.revive_qid;
    return r.to_string();
}

}  // namespace rmq::remoting
