#pragma once

#include <rmq/detail/wire/body_json.hpp>
#include <rmq/detail/wire/java_hash.hpp>

namespace rmq::remoting::detail {

RMQ_DECL const Json* member(const Json& j, std::string_view key) {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

RMQ_DECL std::string get_string(const Json& j, std::string_view key, std::string_view what) {
    const Json* v = member(j, key);
    if (v == nullptr) {
        return {};
    }
    if (!v->is_string()) {
        throw CodecError(
            fmt::format("{}: {} is not a string: {}", what, key, rmq::detail::describe_json(*v)));
    }
    return v->get<std::string>();
}

RMQ_DECL bool get_bool(const Json& j, std::string_view key, std::string_view what) {
    const Json* v = member(j, key);
    if (v == nullptr) {
        return false;
    }
    if (v->is_boolean()) {
        return v->get<bool>();
    }
    if (v->is_string()) {
        return v->get<std::string>() == "true";
    }
    throw CodecError(fmt::format("{}: {} is not a boolean: {}", what, key, rmq::detail::describe_json(*v)));
}

RMQ_DECL const Json* get_array(const Json& j, std::string_view key, std::string_view what) {
    const Json* v = member(j, key);
    if (v != nullptr && !v->is_array()) {
        throw CodecError(fmt::format("{}: {} is not an array", what, key));
    }
    return v;
}

RMQ_DECL Json parse_object(std::string_view text, std::string_view what) {
    Json j = rmq::detail::parse_fastjson(text, what);
    if (!j.is_object()) {
        throw CodecError(fmt::format("{}: not a JSON object", what));
    }
    return j;
}

RMQ_DECL void put_key(std::string& out, std::string_view key, bool& first) {
    if (!first) {
        out.push_back(',');
    }
    first = false;
    rmq::detail::append_json_string(out, key);
    out.push_back(':');
}

RMQ_DECL void put_string(std::string& out,
                         std::string_view key,
                         std::string_view value,
                         bool& first,
                         rmq::detail::JsonEscape esc) {
    put_key(out, key, first);
    rmq::detail::append_json_string(out, value, esc);
}

RMQ_DECL void put_bool(std::string& out, std::string_view key, bool value, bool& first) {
    put_key(out, key, first);
    out.append(value ? "true" : "false");
}

RMQ_DECL void append_message_queue(std::string& out, const MessageQueue& mq) {
    bool first = true;
    out.push_back('{');
    put_string(out, "brokerName", mq.broker_name, first);
    put_int(out, "queueId", mq.queue_id, first);
    put_string(out, "topic", mq.topic, first);
    out.push_back('}');
}

RMQ_DECL MessageQueue parse_message_queue(const Json& j, std::string_view what) {
    if (!j.is_object()) {
        throw CodecError(
            fmt::format("{}: a MessageQueue is not an object: {}", what, rmq::detail::describe_json(j)));
    }
    return MessageQueue{get_string(j, "topic", what),
                        get_string(j, "brokerName", what),
                        get_int<std::int32_t>(j, "queueId", what)};
}

RMQ_DECL void append_mq_set(std::string& out, std::vector<MessageQueue> mqs) {
    rmq::detail::java_hash_set_order(mqs, rmq::detail::java_message_queue_hash);
    out.push_back('[');
    for (std::size_t i = 0; i < mqs.size(); ++i) {
        if (i != 0) {
            out.push_back(',');
        }
        append_message_queue(out, mqs[i]);
    }
    out.push_back(']');
}

RMQ_DECL std::vector<MessageQueue> parse_mq_set(const Json& j, std::string_view key, std::string_view what) {
    std::vector<MessageQueue> out;
    if (const Json* arr = get_array(j, key, what)) {
        for (const auto& e : *arr) {
            out.push_back(parse_message_queue(e, what));
        }
    }
    return out;
}

RMQ_DECL std::vector<std::string>
parse_string_list(const Json& j, std::string_view key, std::string_view what) {
    std::vector<std::string> out;
    if (const Json* arr = get_array(j, key, what)) {
        for (const auto& e : *arr) {
            if (!e.is_string()) {
                throw CodecError(
                    fmt::format("{}: {} holds a non-string: {}", what, key, rmq::detail::describe_json(e)));
            }
            out.push_back(e.get<std::string>());
        }
    }
    return out;
}

RMQ_DECL void
append_string_list(std::string& out, const std::vector<std::string>& items, rmq::detail::JsonEscape esc) {
    out.push_back('[');
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i != 0) {
            out.push_back(',');
        }
        rmq::detail::append_json_string(out, items[i], esc);
    }
    out.push_back(']');
}

}  // namespace rmq::remoting::detail
