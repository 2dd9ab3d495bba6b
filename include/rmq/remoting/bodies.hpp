#pragma once

/// @file bodies.hpp
/// JSON command bodies (RemotingSerializable): TopicRouteData, HeartbeatData, lock/unlock batch bodies and
/// the consumer id list, written exactly as fastjson writes them and read leniently (fastjson's unquoted
/// integer map keys, unknown fields, missing fields).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/remoting/codec_error.hpp>
#include <rmq/subscription.hpp>

#include <rmq/detail/wire/java_hash.hpp>
#include <rmq/detail/wire/json.hpp>

namespace rmq::remoting {

/// Java's PermName bits (QueueData.perm).
namespace perm {
inline constexpr std::int32_t priority = 0x8;
inline constexpr std::int32_t read = 0x4;
inline constexpr std::int32_t write = 0x2;
inline constexpr std::int32_t inherit = 0x1;
}  // namespace perm

/// Java's QueueData: the queues of a topic on one broker.
struct QueueData {
    std::string broker_name;
    std::int32_t read_queue_nums = 0;
    std::int32_t write_queue_nums = 0;
    std::int32_t perm = 0;
    /// `topicSysFlag` (brokers up to 4.8 spell it `topicSynFlag`; both are read).
    std::int32_t topic_sys_flag = 0;

    friend bool operator==(const QueueData&, const QueueData&) = default;
};

/// Java's BrokerData: the addresses of one broker group (id 0 = master).
struct BrokerData {
    std::string cluster;
    std::string broker_name;
    /// broker id -> "ip:port", in the order the peer listed them (a Java HashMap, sorted by id for small
    /// ids).
    std::vector<std::pair<std::int64_t, std::string>> broker_addrs;
    /// 5.x only.
    std::optional<bool> enable_acting_master;
    /// 5.x only.
    std::optional<std::string> zone_name;

    /// Address of broker id `id`, if listed.
    [[nodiscard]] std::optional<std::string_view> address(std::int64_t id) const noexcept {
        for (const auto& [k, v] : broker_addrs) {
            if (k == id) {
                return std::string_view(v);
            }
        }
        return std::nullopt;
    }

    friend bool operator==(const BrokerData&, const BrokerData&) = default;
};

/// Java's TopicRouteData (GET_ROUTEINFO_BY_TOPIC response body).
struct TopicRouteData {
    std::optional<std::string> order_topic_conf;
    std::vector<QueueData> queue_datas;
    std::vector<BrokerData> broker_datas;
    /// Legacy filter servers (broker address -> filter server addresses); absent when the peer omitted it.
    std::optional<std::vector<std::pair<std::string, std::vector<std::string>>>> filter_server_table;

    friend bool operator==(const TopicRouteData&, const TopicRouteData&) = default;
};

/// How a TopicRouteData is written: fastjson's default (unquoted integer keys in brokerAddrs, what Java
/// clients and old NameServers send) or the NameServer's "standard JSON" (quoted and sorted keys, non-ASCII
/// escaped), which 4.9.4+ NameServers send for requests with version >= 401 or acceptStandardJsonOnly.
enum class RouteJsonForm { Fastjson, Standard };

/// Java's LockBatchRequestBody / UnlockBatchRequestBody.
struct LockBatchRequestBody {
    std::string consumer_group;
    std::string client_id;
    /// 5.x: lock only on this broker (no replication in strict lock mode); written only when set.
    std::optional<bool> only_this_broker;
    std::vector<MessageQueue> mq_set;

    friend bool operator==(const LockBatchRequestBody&, const LockBatchRequestBody&) = default;
};

/// The body of UNLOCK_BATCH_MQ has the same fields.
using UnlockBatchRequestBody = LockBatchRequestBody;

namespace detail {

using Json = nlohmann::ordered_json;

inline const Json* member(const Json& j, std::string_view key) {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

inline std::string get_string(const Json& j, std::string_view key, std::string_view what) {
    const Json* v = member(j, key);
    if (v == nullptr) {
        return {};
    }
    if (!v->is_string()) {
        throw CodecError(fmt::format("{}: {} is not a string: {}", what, key, v->dump()));
    }
    return v->get<std::string>();
}

template <class Int>
Int get_int(const Json& j, std::string_view key, std::string_view what) {
    const Json* v = member(j, key);
    if (v == nullptr) {
        return 0;
    }
    if (v->is_number_integer()) {
        return v->get<Int>();
    }
    if (v->is_string()) {
        try {
            return static_cast<Int>(std::stoll(v->get<std::string>()));
        } catch (const std::exception&) {
        }
    }
    throw CodecError(fmt::format("{}: {} is not an integer: {}", what, key, v->dump()));
}

inline bool get_bool(const Json& j, std::string_view key, std::string_view what) {
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
    throw CodecError(fmt::format("{}: {} is not a boolean: {}", what, key, v->dump()));
}

inline const Json* get_array(const Json& j, std::string_view key, std::string_view what) {
    const Json* v = member(j, key);
    if (v != nullptr && !v->is_array()) {
        throw CodecError(fmt::format("{}: {} is not an array", what, key));
    }
    return v;
}

inline Json parse_object(std::string_view text, std::string_view what) {
    Json j = rmq::detail::parse_fastjson(text, what);
    if (!j.is_object()) {
        throw CodecError(fmt::format("{}: not a JSON object", what));
    }
    return j;
}

inline void put_key(std::string& out, std::string_view key, bool& first) {
    if (!first) {
        out.push_back(',');
    }
    first = false;
    rmq::detail::append_json_string(out, key);
    out.push_back(':');
}

inline void put_string(std::string& out,
                       std::string_view key,
                       std::string_view value,
                       bool& first,
                       rmq::detail::JsonEscape esc = rmq::detail::JsonEscape::Default) {
    put_key(out, key, first);
    rmq::detail::append_json_string(out, value, esc);
}

template <class Int>
void put_int(std::string& out, std::string_view key, Int value, bool& first) {
    put_key(out, key, first);
    out.append(fmt::format("{}", value));
}

inline void put_bool(std::string& out, std::string_view key, bool value, bool& first) {
    put_key(out, key, first);
    out.append(value ? "true" : "false");
}

inline void append_message_queue(std::string& out, const MessageQueue& mq) {
    bool first = true;
    out.push_back('{');
    put_string(out, "brokerName", mq.broker_name, first);
    put_int(out, "queueId", mq.queue_id, first);
    put_string(out, "topic", mq.topic, first);
    out.push_back('}');
}

inline MessageQueue parse_message_queue(const Json& j, std::string_view what) {
    if (!j.is_object()) {
        throw CodecError(fmt::format("{}: a MessageQueue is not an object: {}", what, j.dump()));
    }
    return MessageQueue{get_string(j, "topic", what),
                        get_string(j, "brokerName", what),
                        get_int<std::int32_t>(j, "queueId", what)};
}

/// A Java HashSet<MessageQueue> as fastjson writes it: `[mq,...]` in Java's iteration order.
inline void append_mq_set(std::string& out, std::vector<MessageQueue> mqs) {
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

inline std::vector<MessageQueue> parse_mq_set(const Json& j, std::string_view key, std::string_view what) {
    std::vector<MessageQueue> out;
    if (const Json* arr = get_array(j, key, what)) {
        for (const auto& e : *arr) {
            out.push_back(parse_message_queue(e, what));
        }
    }
    return out;
}

inline std::vector<std::string>
parse_string_list(const Json& j, std::string_view key, std::string_view what) {
    std::vector<std::string> out;
    if (const Json* arr = get_array(j, key, what)) {
        for (const auto& e : *arr) {
            if (!e.is_string()) {
                throw CodecError(fmt::format("{}: {} holds a non-string: {}", what, key, e.dump()));
            }
            out.push_back(e.get<std::string>());
        }
    }
    return out;
}

inline void append_string_list(std::string& out,
                               const std::vector<std::string>& items,
                               rmq::detail::JsonEscape esc = rmq::detail::JsonEscape::Default) {
    out.push_back('[');
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i != 0) {
            out.push_back(',');
        }
        rmq::detail::append_json_string(out, items[i], esc);
    }
    out.push_back(']');
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// TopicRouteData

/// Parses a GET_ROUTEINFO_BY_TOPIC body in either form (unquoted or quoted brokerAddrs keys).
/// Throws CodecError on malformed JSON or mistyped fields.
inline TopicRouteData decode_topic_route_data(std::string_view json) {
    constexpr std::string_view what = "TopicRouteData";
    const auto j = detail::parse_object(json, what);
    TopicRouteData out;
    if (detail::member(j, "orderTopicConf") != nullptr) {
        out.order_topic_conf = detail::get_string(j, "orderTopicConf", what);
    }
    if (const auto* arr = detail::get_array(j, "queueDatas", what)) {
        for (const auto& q : *arr) {
            QueueData qd;
            qd.broker_name = detail::get_string(q, "brokerName", what);
            qd.read_queue_nums = detail::get_int<std::int32_t>(q, "readQueueNums", what);
            qd.write_queue_nums = detail::get_int<std::int32_t>(q, "writeQueueNums", what);
            qd.perm = detail::get_int<std::int32_t>(q, "perm", what);
            qd.topic_sys_flag = detail::member(q, "topicSysFlag") != nullptr
                                    ? detail::get_int<std::int32_t>(q, "topicSysFlag", what)
                                    : detail::get_int<std::int32_t>(q, "topicSynFlag", what);
            out.queue_datas.push_back(std::move(qd));
        }
    }
    if (const auto* arr = detail::get_array(j, "brokerDatas", what)) {
        for (const auto& b : *arr) {
            BrokerData bd;
            bd.cluster = detail::get_string(b, "cluster", what);
            bd.broker_name = detail::get_string(b, "brokerName", what);
            if (const auto* addrs = detail::member(b, "brokerAddrs")) {
                if (!addrs->is_object()) {
                    throw CodecError("TopicRouteData: brokerAddrs is not an object");
                }
                for (const auto& [id, addr] : addrs->items()) {
                    std::int64_t broker_id = 0;
                    try {
                        std::size_t used = 0;
                        broker_id = std::stoll(id, &used);
                        if (used != id.size()) {
                            throw std::invalid_argument(id);
                        }
                    } catch (const std::exception&) {
                        throw CodecError(fmt::format("TopicRouteData: broker id \"{}\" is not a number", id));
                    }
                    if (!addr.is_string()) {
                        throw CodecError(
                            fmt::format("TopicRouteData: address of broker id {} is not a string", id));
                    }
                    bd.broker_addrs.emplace_back(broker_id, addr.get<std::string>());
                }
            }
            if (detail::member(b, "enableActingMaster") != nullptr) {
                bd.enable_acting_master = detail::get_bool(b, "enableActingMaster", what);
            }
            if (detail::member(b, "zoneName") != nullptr) {
                bd.zone_name = detail::get_string(b, "zoneName", what);
            }
            out.broker_datas.push_back(std::move(bd));
        }
    }
    if (const auto* fst = detail::member(j, "filterServerTable")) {
        if (!fst->is_object()) {
            throw CodecError("TopicRouteData: filterServerTable is not an object");
        }
        auto& table = out.filter_server_table.emplace();
        for (const auto& [addr, list] : fst->items()) {
            std::vector<std::string> servers;
            if (list.is_array()) {
                for (const auto& s : list) {
                    servers.push_back(s.is_string() ? s.get<std::string>() : s.dump());
                }
            }
            table.emplace_back(addr, std::move(servers));
        }
    }
    return out;
}

/// Writes a TopicRouteData as a Java peer does (`form`: see RouteJsonForm).
inline std::string encode_topic_route_data(const TopicRouteData& route,
                                           RouteJsonForm form = RouteJsonForm::Fastjson) {
    using rmq::detail::JsonEscape;
    const bool standard = form == RouteJsonForm::Standard;
    const JsonEscape esc = standard ? JsonEscape::BrowserCompatible : JsonEscape::Default;
    std::string out = "{";
    bool first = true;
    detail::put_key(out, "brokerDatas", first);
    out.push_back('[');
    for (std::size_t i = 0; i < route.broker_datas.size(); ++i) {
        const BrokerData& bd = route.broker_datas[i];
        if (i != 0) {
            out.push_back(',');
        }
        out.push_back('{');
        bool f = true;
        detail::put_key(out, "brokerAddrs", f);
        auto addrs = bd.broker_addrs;
        if (standard) {
            // MapSortField: a TreeMap<Long, String>.
            std::stable_sort(
                addrs.begin(), addrs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        } else {
            // Java's HashMap<Long, String> order.
            rmq::detail::java_hash_set_order(
                addrs, [](const auto& e) { return rmq::detail::java_long_hash(e.first); });
        }
        out.push_back('{');
        for (std::size_t k = 0; k < addrs.size(); ++k) {
            if (k != 0) {
                out.push_back(',');
            }
            out.append(standard ? fmt::format("\"{}\":", addrs[k].first)
                                : fmt::format("{}:", addrs[k].first));
            rmq::detail::append_json_string(out, addrs[k].second, esc);
        }
        out.push_back('}');
        detail::put_string(out, "brokerName", bd.broker_name, f, esc);
        detail::put_string(out, "cluster", bd.cluster, f, esc);
        if (bd.enable_acting_master) {
            detail::put_bool(out, "enableActingMaster", *bd.enable_acting_master, f);
        }
        if (bd.zone_name) {
            detail::put_string(out, "zoneName", *bd.zone_name, f, esc);
        }
        out.push_back('}');
    }
    out.push_back(']');
    if (route.filter_server_table) {
        detail::put_key(out, "filterServerTable", first);
        auto table = *route.filter_server_table;
        if (standard) {
            std::stable_sort(table.begin(), table.end(), [](const auto& a, const auto& b) {
                return rmq::detail::java_string_compare(a.first, b.first) < 0;
            });
        }
        out.push_back('{');
        for (std::size_t k = 0; k < table.size(); ++k) {
            if (k != 0) {
                out.push_back(',');
            }
            rmq::detail::append_json_string(out, table[k].first, esc);
            out.push_back(':');
            detail::append_string_list(out, table[k].second, esc);
        }
        out.push_back('}');
    }
    if (route.order_topic_conf) {
        detail::put_string(out, "orderTopicConf", *route.order_topic_conf, first, esc);
    }
    detail::put_key(out, "queueDatas", first);
    out.push_back('[');
    for (std::size_t i = 0; i < route.queue_datas.size(); ++i) {
        const QueueData& qd = route.queue_datas[i];
        if (i != 0) {
            out.push_back(',');
        }
        out.push_back('{');
        bool f = true;
        detail::put_string(out, "brokerName", qd.broker_name, f, esc);
        detail::put_int(out, "perm", qd.perm, f);
        detail::put_int(out, "readQueueNums", qd.read_queue_nums, f);
        detail::put_int(out, "topicSysFlag", qd.topic_sys_flag, f);
        detail::put_int(out, "writeQueueNums", qd.write_queue_nums, f);
        out.push_back('}');
    }
    out.append("]}");
    return out;
}

/// The queues of `topic` a consumer reads and a producer writes, as the Java client derives them
/// (MQClientInstance.topicRouteData2TopicSubscribeInfo / topicRouteData2TopicPublishInfo):
/// read queues: every readable QueueData's 0..readQueueNums-1 (sorted like Java's MessageQueue);
/// write queues: QueueDatas sorted by broker name, writable and with a master address, 0..writeQueueNums-1 —
/// unless orderTopicConf (`broker:count;...`) is non-empty, which then lists the write queues.
inline TopicRoute to_topic_route(std::string_view topic, const TopicRouteData& route) {
    TopicRoute out;
    for (const auto& qd : route.queue_datas) {
        if ((qd.perm & perm::read) != 0) {
            for (std::int32_t i = 0; i < qd.read_queue_nums; ++i) {
                out.read_queues.push_back(MessageQueue{std::string(topic), qd.broker_name, i});
            }
        }
    }
    std::sort(out.read_queues.begin(), out.read_queues.end());
    if (route.order_topic_conf && !route.order_topic_conf->empty()) {
        std::string_view conf = *route.order_topic_conf;
        while (!conf.empty()) {
            const std::size_t end = conf.find(';');
            const std::string_view item = conf.substr(0, end);
            if (const std::size_t colon = item.find(':'); colon != std::string_view::npos) {
                std::int32_t nums = 0;
                for (const char c : item.substr(colon + 1)) {
                    if (c < '0' || c > '9') {
                        throw CodecError(
                            fmt::format("TopicRouteData: bad orderTopicConf entry \"{}\"", item));
                    }
                    nums = nums * 10 + (c - '0');
                }
                for (std::int32_t i = 0; i < nums; ++i) {
                    out.write_queues.push_back(
                        MessageQueue{std::string(topic), std::string(item.substr(0, colon)), i});
                }
            }
            if (end == std::string_view::npos) {
                break;
            }
            conf.remove_prefix(end + 1);
        }
        return out;
    }
    std::vector<const QueueData*> sorted;
    for (const auto& qd : route.queue_datas) {
        sorted.push_back(&qd);
    }
    std::stable_sort(sorted.begin(), sorted.end(), [](const QueueData* a, const QueueData* b) {
        return rmq::detail::java_string_compare(a->broker_name, b->broker_name) < 0;
    });
    for (const QueueData* qd : sorted) {
        if ((qd->perm & perm::write) == 0) {
            continue;
        }
        const auto bd = std::find_if(route.broker_datas.begin(),
                                     route.broker_datas.end(),
                                     [&](const BrokerData& b) { return b.broker_name == qd->broker_name; });
        if (bd == route.broker_datas.end() || !bd->address(0)) {
            continue;
        }
        for (std::int32_t i = 0; i < qd->write_queue_nums; ++i) {
            out.write_queues.push_back(MessageQueue{std::string(topic), qd->broker_name, i});
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------------------------
// HeartbeatData

/// Java enum names.
inline std::string_view consume_type_name(ConsumeType t) noexcept {
    return t == ConsumeType::ConsumeActively ? "CONSUME_ACTIVELY" : "CONSUME_PASSIVELY";
}

inline std::string_view message_model_name(MessageModel m) noexcept {
    return m == MessageModel::Broadcasting ? "BROADCASTING" : "CLUSTERING";
}

inline std::string_view consume_from_where_name(ConsumeFromWhere w) noexcept {
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

/// The HEART_BEAT body. Tag and code sets are listed in Java's HashSet order; subscriptions, consumers and
/// producers in the given order.
inline std::string encode_heartbeat_data(const HeartbeatData& hb) {
    std::string out = "{";
    bool first = true;
    detail::put_string(out, "clientID", hb.client_id, first);
    detail::put_key(out, "consumerDataSet", first);
    out.push_back('[');
    for (std::size_t i = 0; i < hb.consumer_data_set.size(); ++i) {
        const ConsumerData& cd = hb.consumer_data_set[i];
        if (i != 0) {
            out.push_back(',');
        }
        out.push_back('{');
        bool f = true;
        detail::put_string(out, "consumeFromWhere", consume_from_where_name(cd.consume_from_where), f);
        detail::put_string(out, "consumeType", consume_type_name(cd.consume_type), f);
        detail::put_string(out, "groupName", cd.group_name, f);
        detail::put_string(out, "messageModel", message_model_name(cd.message_model), f);
        detail::put_key(out, "subscriptionDataSet", f);
        out.push_back('[');
        for (std::size_t s = 0; s < cd.subscription_data_set.size(); ++s) {
            const SubscriptionData& sd = cd.subscription_data_set[s];
            if (s != 0) {
                out.push_back(',');
            }
            out.push_back('{');
            bool g = true;
            detail::put_bool(out, "classFilterMode", sd.class_filter_mode, g);
            std::vector<std::int32_t> codes(sd.code_set.begin(), sd.code_set.end());
            rmq::detail::java_hash_set_order(codes, [](std::int32_t c) { return c; });
            detail::put_key(out, "codeSet", g);
            out.push_back('[');
            for (std::size_t k = 0; k < codes.size(); ++k) {
                if (k != 0) {
                    out.push_back(',');
                }
                out.append(fmt::format("{}", codes[k]));
            }
            out.push_back(']');
            detail::put_string(out, "expressionType", sd.expression_type, g);
            detail::put_string(out, "subString", sd.sub_string, g);
            detail::put_int(out, "subVersion", sd.sub_version, g);
            std::vector<std::string> tags(sd.tags_set.begin(), sd.tags_set.end());
            rmq::detail::java_hash_set_order(
                tags, [](const std::string& t) { return rmq::detail::java_string_hash(t); });
            detail::put_key(out, "tagsSet", g);
            detail::append_string_list(out, tags);
            detail::put_string(out, "topic", sd.topic, g);
            out.push_back('}');
        }
        out.push_back(']');
        detail::put_bool(out, "unitMode", cd.unit_mode, f);
        out.push_back('}');
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

/// Parses a HEART_BEAT body (what a broker or an embedded test peer receives). Throws CodecError on
/// malformed JSON or unknown enum names.
inline HeartbeatData decode_heartbeat_data(std::string_view json) {
    constexpr std::string_view what = "HeartbeatData";
    const auto j = detail::parse_object(json, what);
    HeartbeatData hb;
    hb.client_id = detail::get_string(j, "clientID", what);
    if (const auto* arr = detail::get_array(j, "consumerDataSet", what)) {
        for (const auto& c : *arr) {
            ConsumerData cd;
            cd.group_name = detail::get_string(c, "groupName", what);
            const std::string type = detail::get_string(c, "consumeType", what);
            if (type == "CONSUME_ACTIVELY") {
                cd.consume_type = ConsumeType::ConsumeActively;
            } else if (type == "CONSUME_PASSIVELY" || type.empty()) {
                cd.consume_type = ConsumeType::ConsumePassively;
            } else {
                throw CodecError(fmt::format("HeartbeatData: unknown consumeType \"{}\"", type));
            }
            const std::string model = detail::get_string(c, "messageModel", what);
            if (model == "BROADCASTING") {
                cd.message_model = MessageModel::Broadcasting;
            } else if (model == "CLUSTERING" || model.empty()) {
                cd.message_model = MessageModel::Clustering;
            } else {
                throw CodecError(fmt::format("HeartbeatData: unknown messageModel \"{}\"", model));
            }
            const std::string from = detail::get_string(c, "consumeFromWhere", what);
            bool known = from.empty();
            for (const auto w : {ConsumeFromWhere::LastOffset,
                                 ConsumeFromWhere::LastOffsetAndFromMinWhenBootFirst,
                                 ConsumeFromWhere::MinOffset,
                                 ConsumeFromWhere::MaxOffset,
                                 ConsumeFromWhere::FirstOffset,
                                 ConsumeFromWhere::Timestamp}) {
                if (consume_from_where_name(w) == from) {
                    cd.consume_from_where = w;
                    known = true;
                }
            }
            if (!known) {
                throw CodecError(fmt::format("HeartbeatData: unknown consumeFromWhere \"{}\"", from));
            }
            cd.unit_mode = detail::get_bool(c, "unitMode", what);
            if (const auto* subs = detail::get_array(c, "subscriptionDataSet", what)) {
                for (const auto& s : *subs) {
                    SubscriptionData sd;
                    sd.class_filter_mode = detail::get_bool(s, "classFilterMode", what);
                    sd.topic = detail::get_string(s, "topic", what);
                    sd.sub_string = detail::get_string(s, "subString", what);
                    sd.sub_version = detail::get_int<std::int64_t>(s, "subVersion", what);
                    sd.expression_type = detail::get_string(s, "expressionType", what);
                    for (auto& t : detail::parse_string_list(s, "tagsSet", what)) {
                        sd.tags_set.insert(std::move(t));
                    }
                    if (const auto* codes = detail::get_array(s, "codeSet", what)) {
                        for (const auto& code : *codes) {
                            if (!code.is_number_integer()) {
                                throw CodecError("HeartbeatData: codeSet holds a non-integer");
                            }
                            sd.code_set.insert(code.get<std::int32_t>());
                        }
                    }
                    cd.subscription_data_set.push_back(std::move(sd));
                }
            }
            hb.consumer_data_set.push_back(std::move(cd));
        }
    }
    if (const auto* arr = detail::get_array(j, "producerDataSet", what)) {
        for (const auto& p : *arr) {
            hb.producer_groups.push_back(detail::get_string(p, "groupName", what));
        }
    }
    return hb;
}

// ---------------------------------------------------------------------------------------------------------------
// Lock / unlock batch, consumer list

/// LOCK_BATCH_MQ / UNLOCK_BATCH_MQ request body; queues in Java's HashSet order.
inline std::string encode_lock_batch_request(const LockBatchRequestBody& body) {
    std::string out = "{";
    bool first = true;
    detail::put_string(out, "clientId", body.client_id, first);
    detail::put_string(out, "consumerGroup", body.consumer_group, first);
    detail::put_key(out, "mqSet", first);
    detail::append_mq_set(out, body.mq_set);
    if (body.only_this_broker) {
        detail::put_bool(out, "onlyThisBroker", *body.only_this_broker, first);
    }
    out.push_back('}');
    return out;
}

/// Parses a LOCK_BATCH_MQ / UNLOCK_BATCH_MQ request body.
inline LockBatchRequestBody decode_lock_batch_request(std::string_view json) {
    constexpr std::string_view what = "LockBatchRequestBody";
    const auto j = detail::parse_object(json, what);
    LockBatchRequestBody out;
    out.consumer_group = detail::get_string(j, "consumerGroup", what);
    out.client_id = detail::get_string(j, "clientId", what);
    if (detail::member(j, "onlyThisBroker") != nullptr) {
        out.only_this_broker = detail::get_bool(j, "onlyThisBroker", what);
    }
    out.mq_set = detail::parse_mq_set(j, "mqSet", what);
    return out;
}

/// LOCK_BATCH_MQ response body (LockBatchResponseBody): the queues actually locked.
inline std::string encode_lock_batch_response(std::span<const MessageQueue> locked) {
    std::string out = "{";
    bool first = true;
    detail::put_key(out, "lockOKMQSet", first);
    detail::append_mq_set(out, std::vector<MessageQueue>(locked.begin(), locked.end()));
    out.push_back('}');
    return out;
}

/// Parses a LOCK_BATCH_MQ response body.
inline std::vector<MessageQueue> decode_lock_batch_response(std::string_view json) {
    constexpr std::string_view what = "LockBatchResponseBody";
    return detail::parse_mq_set(detail::parse_object(json, what), "lockOKMQSet", what);
}

/// GET_CONSUMER_LIST_BY_GROUP response body (GetConsumerListByGroupResponseBody).
inline std::string encode_consumer_list(std::span<const std::string> consumer_ids) {
    std::string out = "{";
    bool first = true;
    detail::put_key(out, "consumerIdList", first);
    detail::append_string_list(out, std::vector<std::string>(consumer_ids.begin(), consumer_ids.end()));
    out.push_back('}');
    return out;
}

/// Parses a GET_CONSUMER_LIST_BY_GROUP response body.
inline std::vector<std::string> decode_consumer_list(std::string_view json) {
    constexpr std::string_view what = "GetConsumerListByGroupResponseBody";
    return detail::parse_string_list(detail::parse_object(json, what), "consumerIdList", what);
}

// ---------------------------------------------------------------------------------------------------------------
// ResetOffsetBody (RESET_CONSUMER_CLIENT_OFFSET)

/// The two forms of ResetOffsetBody: Java's default writes `Map<MessageQueue, Long>` with object keys (not
/// JSON:
/// `{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:123}}`); the "ForC" form, chosen by the broker
/// when the admin tool that triggered the reset spoke CPP, is a list of `{brokerName, offset, queueId,
/// topic}`.
enum class ResetOffsetForm { ObjectKeys, ForC };

namespace detail {

/// Index just past the JSON value starting at `i` (strings, nesting and fastjson object keys respected).
inline std::size_t skip_json_value(std::string_view s, std::size_t i, std::string_view what) {
    int depth = 0;
    bool in_string = false;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
                if (depth == 0) {
                    return i + 1;
                }
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0) {
                return i;  // end of the enclosing container: a scalar ended here
            }
            if (--depth == 0) {
                return i + 1;
            }
        } else if (c == ',' && depth == 0) {
            return i;
        }
    }
    if (depth != 0 || in_string) {
        throw CodecError(fmt::format("{}: unterminated JSON value", what));
    }
    return i;
}

inline std::size_t skip_ws(std::string_view s, std::size_t i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) {
        ++i;
    }
    return i;
}

[[noreturn]] inline void reset_body_error(std::string_view problem, std::size_t at) {
    throw CodecError(fmt::format("ResetOffsetBody: {} at byte {}", problem, at));
}

}  // namespace detail

/// Parses a RESET_CONSUMER_CLIENT_OFFSET body in either form: (queue, offset) pairs.
inline std::vector<std::pair<MessageQueue, std::int64_t>> decode_reset_offset_body(std::string_view json) {
    constexpr std::string_view what = "ResetOffsetBody";
    std::vector<std::pair<MessageQueue, std::int64_t>> out;
    std::size_t i = detail::skip_ws(json, 0);
    if (i >= json.size() || json[i] != '{') {
        detail::reset_body_error("expected '{'", i);
    }
    ++i;
    while (true) {
        i = detail::skip_ws(json, i);
        if (i >= json.size()) {
            detail::reset_body_error("unexpected end", i);
        }
        if (json[i] == '}') {
            return out;
        }
        if (json[i] == ',') {
            ++i;
            continue;
        }
        const std::size_t key_end = detail::skip_json_value(json, i, what);
        const auto key = detail::parse_object("{" + std::string(json.substr(i, key_end - i)) + ":0}", what);
        i = detail::skip_ws(json, key_end);
        if (i >= json.size() || json[i] != ':') {
            detail::reset_body_error("expected ':'", i);
        }
        i = detail::skip_ws(json, i + 1);
        const std::size_t value_end = detail::skip_json_value(json, i, what);
        if (key.begin().key() != "offsetTable") {
            i = value_end;
            continue;
        }
        const std::string_view value = json.substr(i, value_end - i);
        if (!value.empty() && value.front() == '[') {
            for (const auto& e : rmq::detail::parse_fastjson(value, what)) {
                out.emplace_back(detail::parse_message_queue(e, what),
                                 detail::get_int<std::int64_t>(e, "offset", what));
            }
        } else if (!value.empty() && value.front() == '{') {
            std::size_t k = 1;
            while (true) {
                k = detail::skip_ws(value, k);
                if (k >= value.size()) {
                    detail::reset_body_error("unterminated offsetTable", i + k);
                }
                if (value[k] == '}') {
                    break;
                }
                if (value[k] == ',') {
                    ++k;
                    continue;
                }
                const std::size_t mq_end = detail::skip_json_value(value, k, what);
                const MessageQueue mq = detail::parse_message_queue(
                    rmq::detail::parse_fastjson(value.substr(k, mq_end - k), what), what);
                k = detail::skip_ws(value, mq_end);
                if (k >= value.size() || value[k] != ':') {
                    detail::reset_body_error("expected ':' after a MessageQueue key", i + k);
                }
                k = detail::skip_ws(value, k + 1);
                const std::size_t num_end = detail::skip_json_value(value, k, what);
                const auto num = rmq::detail::parse_fastjson(value.substr(k, num_end - k), what);
                if (!num.is_number_integer()) {
                    detail::reset_body_error("offset is not an integer", i + k);
                }
                out.emplace_back(mq, num.get<std::int64_t>());
                k = num_end;
            }
        } else if (value != "null") {
            detail::reset_body_error("offsetTable is neither an object nor a list", i);
        }
        i = value_end;
    }
}

/// Writes a ResetOffsetBody the way a Java broker does (ObjectKeys form: entries in the given order).
inline std::string encode_reset_offset_body(std::span<const std::pair<MessageQueue, std::int64_t>> offsets,
                                            ResetOffsetForm form = ResetOffsetForm::ObjectKeys) {
    std::string out = "{\"offsetTable\":";
    out.push_back(form == ResetOffsetForm::ForC ? '[' : '{');
    for (std::size_t n = 0; n < offsets.size(); ++n) {
        const auto& [mq, offset] = offsets[n];
        if (n != 0) {
            out.push_back(',');
        }
        if (form == ResetOffsetForm::ForC) {
            bool f = true;
            out.push_back('{');
            detail::put_string(out, "brokerName", mq.broker_name, f);
            detail::put_int(out, "offset", offset, f);
            detail::put_int(out, "queueId", mq.queue_id, f);
            detail::put_string(out, "topic", mq.topic, f);
            out.push_back('}');
        } else {
            detail::append_message_queue(out, mq);
            out.append(fmt::format(":{}", offset));
        }
    }
    out.push_back(form == ResetOffsetForm::ForC ? ']' : '}');
    out.push_back('}');
    return out;
}

}  // namespace rmq::remoting
