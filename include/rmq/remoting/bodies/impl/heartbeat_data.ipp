#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/remoting/bodies/heartbeat_data.hpp>
#include <rmq/remoting/codec_error.hpp>

#include <rmq/detail/wire/body_json.hpp>
#include <rmq/detail/wire/java_hash.hpp>
#include <rmq/detail/wire/json.hpp>

namespace rmq::remoting {

RMQ_DECL std::string_view consume_type_name(ConsumeType t) noexcept {
    return t == ConsumeType::ConsumeActively ? "CONSUME_ACTIVELY" : "CONSUME_PASSIVELY";
}

RMQ_DECL std::string_view message_model_name(MessageModel m) noexcept {
    return m == MessageModel::Broadcasting ? "BROADCASTING" : "CLUSTERING";
}

RMQ_DECL std::string_view consume_from_where_name(ConsumeFromWhere w) noexcept {
    switch (w) {
    case ConsumeFromWhere::LastOffset:
        return "CONSUME_FROM_LAST_OFFSET";
    case ConsumeFromWhere::LastOffsetAndFromMinWhenBootFirst:
        return "CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST";
    case ConsumeFromWhere::MinOffset:
        return "CONSUME_FROM_MIN_OFFSET";
    case ConsumeFromWhere::MaxOffset:
        return "CONSUME_FROM_MAX_OFFSET";
    case ConsumeFromWhere::FirstOffset:
        return "CONSUME_FROM_FIRST_OFFSET";
    case ConsumeFromWhere::Timestamp:
        return "CONSUME_FROM_TIMESTAMP";
    }
    return "CONSUME_FROM_LAST_OFFSET";
}

namespace detail {

constexpr std::string_view heartbeat_data_what = "HeartbeatData";

/// A Java HashSet<Integer> as fastjson writes it.
inline void write_code_set(std::string& out, const SubscriptionData& sd) {
    std::vector<std::int32_t> codes(sd.code_set.begin(), sd.code_set.end());
    rmq::detail::java_hash_set_order(codes, [](std::int32_t c) { return c; });
    out.push_back('[');
    for (std::size_t k = 0; k < codes.size(); ++k) {
        if (k != 0) {
            out.push_back(',');
        }
        out.append(fmt::format("{}", codes[k]));
    }
    out.push_back(']');
}

inline void write_subscription(std::string& out, const SubscriptionData& sd) {
    out.push_back('{');
    bool g = true;
    detail::put_bool(out, "classFilterMode", sd.class_filter_mode, g);
    detail::put_key(out, "codeSet", g);
    write_code_set(out, sd);
    detail::put_string(out, "expressionType", sd.expression_type, g);
    detail::put_string(out, "subString", sd.sub_string, g);
    detail::put_int(out, "subVersion", sd.sub_version, g);
    std::vector<std::string> tags(sd.tags_set.begin(), sd.tags_set.end());
    rmq::detail::java_hash_set_order(tags,
                                     [](const std::string& t) { return rmq::detail::java_string_hash(t); });
    detail::put_key(out, "tagsSet", g);
    detail::append_string_list(out, tags);
    detail::put_string(out, "topic", sd.topic, g);
    out.push_back('}');
}

inline void write_consumer(std::string& out, const ConsumerData& cd) {
    out.push_back('{');
    bool f = true;
    detail::put_string(out, "consumeFromWhere", consume_from_where_name(cd.consume_from_where), f);
    detail::put_string(out, "consumeType", consume_type_name(cd.consume_type), f);
    detail::put_string(out, "groupName", cd.group_name, f);
    detail::put_string(out, "messageModel", message_model_name(cd.message_model), f);
    detail::put_key(out, "subscriptionDataSet", f);
    out.push_back('[');
    for (std::size_t s = 0; s < cd.subscription_data_set.size(); ++s) {
        if (s != 0) {
            out.push_back(',');
        }
        write_subscription(out, cd.subscription_data_set[s]);
    }
    out.push_back(']');
    detail::put_bool(out, "unitMode", cd.unit_mode, f);
    out.push_back('}');
}

inline ConsumeType read_consume_type(const detail::Json& c) {
    const std::string type = detail::get_string(c, "consumeType", heartbeat_data_what);
    if (type == "CONSUME_ACTIVELY") {
        return ConsumeType::ConsumeActively;
    }
    if (type == "CONSUME_PASSIVELY" || type.empty()) {
        return ConsumeType::ConsumePassively;
    }
    throw CodecError(fmt::format("HeartbeatData: unknown consumeType \"{}\"", type));
}

inline MessageModel read_message_model(const detail::Json& c) {
    const std::string model = detail::get_string(c, "messageModel", heartbeat_data_what);
    if (model == "BROADCASTING") {
        return MessageModel::Broadcasting;
    }
    if (model == "CLUSTERING" || model.empty()) {
        return MessageModel::Clustering;
    }
    throw CodecError(fmt::format("HeartbeatData: unknown messageModel \"{}\"", model));
}

/// consumeFromWhere, `fallback` when empty.
inline ConsumeFromWhere read_consume_from_where(const detail::Json& c, ConsumeFromWhere fallback) {
    const std::string from = detail::get_string(c, "consumeFromWhere", heartbeat_data_what);
    if (from.empty()) {
        return fallback;
    }
    for (const auto w : {ConsumeFromWhere::LastOffset,
                         ConsumeFromWhere::LastOffsetAndFromMinWhenBootFirst,
                         ConsumeFromWhere::MinOffset,
                         ConsumeFromWhere::MaxOffset,
                         ConsumeFromWhere::FirstOffset,
                         ConsumeFromWhere::Timestamp}) {
        if (consume_from_where_name(w) == from) {
            return w;
        }
    }
    throw CodecError(fmt::format("HeartbeatData: unknown consumeFromWhere \"{}\"", from));
}

inline SubscriptionData read_subscription(const detail::Json& s) {
    SubscriptionData sd;
    sd.class_filter_mode = detail::get_bool(s, "classFilterMode", heartbeat_data_what);
    sd.topic = detail::get_string(s, "topic", heartbeat_data_what);
    sd.sub_string = detail::get_string(s, "subString", heartbeat_data_what);
    sd.sub_version = detail::get_int<std::int64_t>(s, "subVersion", heartbeat_data_what);
    sd.expression_type = detail::get_string(s, "expressionType", heartbeat_data_what);
    for (auto& t : detail::parse_string_list(s, "tagsSet", heartbeat_data_what)) {
        sd.tags_set.insert(std::move(t));
    }
    if (const auto* codes = detail::get_array(s, "codeSet", heartbeat_data_what)) {
        for (const auto& code : *codes) {
            if (!code.is_number_integer()) {
                throw CodecError("HeartbeatData: codeSet holds a non-integer");
            }
            sd.code_set.insert(code.get<std::int32_t>());
        }
    }
    return sd;
}

inline ConsumerData read_consumer(const detail::Json& c) {
    ConsumerData cd;
    cd.group_name = detail::get_string(c, "groupName", heartbeat_data_what);
    cd.consume_type = read_consume_type(c);
    cd.message_model = read_message_model(c);
    cd.consume_from_where = read_consume_from_where(c, cd.consume_from_where);
    cd.unit_mode = detail::get_bool(c, "unitMode", heartbeat_data_what);
    if (const auto* subs = detail::get_array(c, "subscriptionDataSet", heartbeat_data_what)) {
        for (const auto& s : *subs) {
            cd.subscription_data_set.push_back(read_subscription(s));
        }
    }
    return cd;
}

}  // namespace detail

RMQ_DECL std::string encode_heartbeat_data(const HeartbeatData& hb) {
    std::string out = "{";
    bool first = true;
    detail::put_string(out, "clientID", hb.client_id, first);
    detail::put_key(out, "consumerDataSet", first);
    out.push_back('[');
    for (std::size_t i = 0; i < hb.consumer_data_set.size(); ++i) {
        if (i != 0) {
            out.push_back(',');
        }
        detail::write_consumer(out, hb.consumer_data_set[i]);
    }
    out.push_back(']');
    detail::put_key(out, "producerDataSet", first);
    out.push_back('[');
    for (std::size_t i = 0; i < hb.producer_groups.size(); ++i) {
        if (i != 0) {
            out.push_back(',');
        }
        bool f = true;
        out.push_back('{');
        detail::put_string(out, "groupName", hb.producer_groups[i], f);
        out.push_back('}');
    }
    out.append("]}");
    return out;
}

RMQ_DECL HeartbeatData decode_heartbeat_data(std::string_view json) {
    const auto j = detail::parse_object(json, detail::heartbeat_data_what);
    HeartbeatData hb;
    hb.client_id = detail::get_string(j, "clientID", detail::heartbeat_data_what);
    if (const auto* arr = detail::get_array(j, "consumerDataSet", detail::heartbeat_data_what)) {
        for (const auto& c : *arr) {
            hb.consumer_data_set.push_back(detail::read_consumer(c));
        }
    }
    if (const auto* arr = detail::get_array(j, "producerDataSet", detail::heartbeat_data_what)) {
        for (const auto& p : *arr) {
            hb.producer_groups.push_back(detail::get_string(p, "groupName", detail::heartbeat_data_what));
        }
    }
    return hb;
}

}  // namespace rmq::remoting
