#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/protocol.hpp>
#include <rmq/remoting/bodies/assignment.hpp>
#include <rmq/remoting/bodies/heartbeat_data.hpp>
#include <rmq/remoting/codec_error.hpp>

#include <rmq/detail/wire/body_json.hpp>
#include <rmq/detail/wire/json.hpp>

namespace rmq::remoting {

namespace detail {

inline MessageModel parse_message_model(std::string_view name, std::string_view what) {
    if (name == "BROADCASTING") {
        return MessageModel::Broadcasting;
    }
    if (name == "CLUSTERING") {
        return MessageModel::Clustering;
    }
    throw CodecError(fmt::format("{}: unknown messageModel \"{}\"", what, name));
}

inline void append_assignment(std::string& out, const MessageQueueAssignment& a) {
    out.push_back('{');
    bool first = true;
    if (!a.attachments.empty()) {
        put_key(out, "attachments", first);
        out.push_back('{');
        bool inner = true;
        for (const auto& [k, v] : a.attachments) {
            put_string(out, k, v, inner);
        }
        out.push_back('}');
    }
    put_key(out, "messageQueue", first);
    append_message_queue(out, a.message_queue);
    put_string(out, "mode", to_string(a.mode), first);
    out.push_back('}');
}

inline std::optional<MessageQueueAssignment> parse_assignment(const Json& j, std::string_view what) {
    if (!j.is_object()) {
        throw CodecError(fmt::format("{}: an assignment is not an object", what));
    }
    const Json* mq = member(j, "messageQueue");
    if (mq == nullptr || mq->is_null()) {
        return std::nullopt;
    }
    MessageQueueAssignment a;
    a.message_queue = parse_message_queue(*mq, what);
    if (const Json* m = member(j, "mode"); m != nullptr && !m->is_null()) {
        a.mode = parse_message_request_mode(get_string(j, "mode", what));
    }
    if (const Json* att = member(j, "attachments"); att != nullptr && att->is_object()) {
        for (const auto& [k, v] : att->items()) {
            a.attachments.emplace(k, v.is_string() ? v.get<std::string>() : v.dump());
        }
    }
    return a;
}

}  // namespace detail

RMQ_DECL MessageRequestMode parse_message_request_mode(std::string_view name) {
    if (name == "POP") {
        return MessageRequestMode::Pop;
    }
    if (name == "PULL") {
        return MessageRequestMode::Pull;
    }
    throw CodecError(fmt::format("MessageRequestMode: unknown mode \"{}\" (PULL or POP)", name));
}

RMQ_DECL std::string encode_query_assignment_request(const QueryAssignmentArgs& args) {
    std::string out = "{";
    bool first = true;
    detail::put_string(out, "clientId", args.client_id, first);
    detail::put_string(out, "consumerGroup", args.consumer_group, first);
    detail::put_string(out, "messageModel", message_model_name(args.message_model), first);
    detail::put_string(out, "strategyName", args.strategy_name, first);
    detail::put_string(out, "topic", args.topic, first);
    out.push_back('}');
    return out;
}

RMQ_DECL QueryAssignmentArgs decode_query_assignment_request(std::string_view json) {
    constexpr std::string_view what = "QueryAssignmentRequestBody";
    const auto j = detail::parse_object(json, what);
    QueryAssignmentArgs out;
    out.topic = detail::get_string(j, "topic", what);
    out.consumer_group = detail::get_string(j, "consumerGroup", what);
    out.client_id = detail::get_string(j, "clientId", what);
    out.strategy_name = detail::get_string(j, "strategyName", what);
    out.message_model = detail::parse_message_model(detail::get_string(j, "messageModel", what), what);
    return out;
}

RMQ_DECL std::string
encode_query_assignment_response(const std::optional<std::vector<MessageQueueAssignment>>& assignments) {
    if (!assignments) {
        return "{}";
    }
    std::string out = "{";
    bool first = true;
    detail::put_key(out, "messageQueueAssignments", first);
    out.push_back('[');
    for (std::size_t i = 0; i < assignments->size(); ++i) {
        if (i > 0) {
            out.push_back(',');
        }
        detail::append_assignment(out, (*assignments)[i]);
    }
    out.append("]}");
    return out;
}

RMQ_DECL std::optional<std::vector<MessageQueueAssignment>>
decode_query_assignment_response(std::string_view json) {
    constexpr std::string_view what = "QueryAssignmentResponseBody";
    const auto j = detail::parse_object(json, what);
    const detail::Json* set = detail::member(j, "messageQueueAssignments");
    if (set == nullptr || set->is_null()) {
        return std::nullopt;
    }
    if (!set->is_array()) {
        throw CodecError(fmt::format("{}: messageQueueAssignments is not an array", what));
    }
    std::vector<MessageQueueAssignment> out;
    for (const auto& item : *set) {
        if (auto a = detail::parse_assignment(item, what)) {
            out.push_back(std::move(*a));
        }
    }
    return out;
}

RMQ_DECL std::string encode_set_message_request_mode(const SetMessageRequestModeArgs& args) {
    std::string out = "{";
    bool first = true;
    detail::put_string(out, "consumerGroup", args.consumer_group, first);
    detail::put_string(out, "mode", to_string(args.mode), first);
    detail::put_int(out, "popShareQueueNum", args.pop_share_queue_num, first);
    detail::put_string(out, "topic", args.topic, first);
    out.push_back('}');
    return out;
}

RMQ_DECL SetMessageRequestModeArgs decode_set_message_request_mode(std::string_view json) {
    constexpr std::string_view what = "SetMessageRequestModeRequestBody";
    const auto j = detail::parse_object(json, what);
    SetMessageRequestModeArgs out;
    out.topic = detail::get_string(j, "topic", what);
    out.consumer_group = detail::get_string(j, "consumerGroup", what);
    if (const auto* m = detail::member(j, "mode"); m != nullptr && !m->is_null()) {
        out.mode = parse_message_request_mode(detail::get_string(j, "mode", what));
    }
    out.pop_share_queue_num = detail::get_int<std::int32_t>(j, "popShareQueueNum", what);
    return out;
}

RMQ_DECL void check_assignment_answer(const Command& response, std::string_view what) {
    if (response.code == response_code::success) {
        return;
    }
    const std::string remark = response.remark.value_or("(no remark)");
    if (response.code == response_code::request_code_not_supported) {
        throw AssignmentUnsupported(
            response.code,
            fmt::format("{}: the broker does not support broker-side assignment "
                        "(RocketMQ 5.x needed; it answered REQUEST_CODE_NOT_SUPPORTED: {})",
                        what,
                        remark));
    }
    if (response.code == response_code::no_permission) {
        throw AccessDenied(response.code, fmt::format("{}: {}", what, remark));
    }
    throw BrokerError(response.code, fmt::format("{}: {}", what, remark));
}

}  // namespace rmq::remoting
