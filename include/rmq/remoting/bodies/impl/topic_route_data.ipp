#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/remoting/bodies/topic_route_data.hpp>
#include <rmq/remoting/codec_error.hpp>

#include <rmq/detail/util/java_string.hpp>
#include <rmq/detail/wire/body_json.hpp>
#include <rmq/detail/wire/java_hash.hpp>
#include <rmq/detail/wire/json.hpp>

namespace rmq::remoting {

namespace detail {

using rmq::detail::JsonEscape;
constexpr std::string_view topic_route_data_what = "TopicRouteData";

inline QueueData read_queue_data(const detail::Json& q) {
    QueueData qd;
    qd.broker_name = detail::get_string(q, "brokerName", topic_route_data_what);
    qd.read_queue_nums = detail::get_int<std::int32_t>(q, "readQueueNums", topic_route_data_what);
    qd.write_queue_nums = detail::get_int<std::int32_t>(q, "writeQueueNums", topic_route_data_what);
    qd.perm = detail::get_int<std::int32_t>(q, "perm", topic_route_data_what);
    qd.topic_sys_flag = detail::member(q, "topicSysFlag") != nullptr
                            ? detail::get_int<std::int32_t>(q, "topicSysFlag", topic_route_data_what)
                            : detail::get_int<std::int32_t>(q, "topicSynFlag", topic_route_data_what);
    return qd;
}

inline std::int64_t parse_broker_id(const std::string& id) {
    try {
        std::size_t used = 0;
        const std::int64_t broker_id = std::stoll(id, &used);
        if (used != id.size()) {
            throw std::invalid_argument(id);
        }
        return broker_id;
    } catch (const std::exception&) {
        throw CodecError(fmt::format("TopicRouteData: broker id \"{}\" is not a number", id));
    }
}

inline void read_broker_addrs(const detail::Json& addrs, BrokerData& bd) {
    if (!addrs.is_object()) {
        throw CodecError("TopicRouteData: brokerAddrs is not an object");
    }
    for (const auto& [id, addr] : addrs.items()) {
        const std::int64_t broker_id = parse_broker_id(id);
        if (!addr.is_string()) {
            throw CodecError(fmt::format("TopicRouteData: address of broker id {} is not a string", id));
        }
        bd.broker_addrs.emplace_back(broker_id, addr.get<std::string>());
    }
}

inline BrokerData read_broker_data(const detail::Json& b) {
    BrokerData bd;
    bd.cluster = detail::get_string(b, "cluster", topic_route_data_what);
    bd.broker_name = detail::get_string(b, "brokerName", topic_route_data_what);
    if (const auto* addrs = detail::member(b, "brokerAddrs")) {
        read_broker_addrs(*addrs, bd);
    }
    if (detail::member(b, "enableActingMaster") != nullptr) {
        bd.enable_acting_master = detail::get_bool(b, "enableActingMaster", topic_route_data_what);
    }
    if (detail::member(b, "zoneName") != nullptr) {
        bd.zone_name = detail::get_string(b, "zoneName", topic_route_data_what);
    }
    return bd;
}

inline void read_filter_server_table(const detail::Json& fst, TopicRouteData& out) {
    if (!fst.is_object()) {
        throw CodecError("TopicRouteData: filterServerTable is not an object");
    }
    auto& table = out.filter_server_table.emplace();
    for (const auto& [addr, list] : fst.items()) {
        std::vector<std::string> servers;
        if (list.is_array()) {
            for (const auto& s : list) {
                servers.push_back(s.is_string() ? s.get<std::string>() : s.dump());
            }
        }
        table.emplace_back(addr, std::move(servers));
    }
}

/// brokerAddrs: a TreeMap<Long, String> (MapSortField) in the standard form, else Java's HashMap order.
inline void write_broker_addrs(std::string& out, const BrokerData& bd, bool standard, JsonEscape esc) {
    auto addrs = bd.broker_addrs;
    if (standard) {
        std::stable_sort(
            addrs.begin(), addrs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    } else {
        rmq::detail::java_hash_set_order(addrs,
                                         [](const auto& e) { return rmq::detail::java_long_hash(e.first); });
    }
    out.push_back('{');
    for (std::size_t k = 0; k < addrs.size(); ++k) {
        if (k != 0) {
            out.push_back(',');
        }
        out.append(standard ? fmt::format("\"{}\":", addrs[k].first) : fmt::format("{}:", addrs[k].first));
        rmq::detail::append_json_string(out, addrs[k].second, esc);
    }
    out.push_back('}');
}

inline void write_broker_data(std::string& out, const BrokerData& bd, bool standard, JsonEscape esc) {
    out.push_back('{');
    bool f = true;
    detail::put_key(out, "brokerAddrs", f);
    write_broker_addrs(out, bd, standard, esc);
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

inline void write_filter_server_table(std::string& out,
                                      std::vector<std::pair<std::string, std::vector<std::string>>> table,
                                      bool standard,
                                      JsonEscape esc) {
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

inline void write_queue_data(std::string& out, const QueueData& qd, JsonEscape esc) {
    out.push_back('{');
    bool f = true;
    detail::put_string(out, "brokerName", qd.broker_name, f, esc);
    detail::put_int(out, "perm", qd.perm, f);
    detail::put_int(out, "readQueueNums", qd.read_queue_nums, f);
    detail::put_int(out, "topicSysFlag", qd.topic_sys_flag, f);
    detail::put_int(out, "writeQueueNums", qd.write_queue_nums, f);
    out.push_back('}');
}

/// One `broker:count` pair per entry of orderTopicConf (`broker:count;...`; items without ':' are skipped,
/// as Java does); throws CodecError for a count that is not a number or exceeds max_route_queue_nums.
inline std::vector<std::pair<std::string_view, std::int32_t>>
order_topic_conf_entries(std::string_view conf) {
    std::vector<std::pair<std::string_view, std::int32_t>> out;
    while (!conf.empty()) {
        const std::size_t end = conf.find(';');
        const std::string_view item = conf.substr(0, end);
        if (const std::size_t colon = item.find(':'); colon != std::string_view::npos) {
            std::int32_t nums = 0;
            for (const char c : item.substr(colon + 1)) {
                if (c < '0' || c > '9') {
                    throw CodecError(
                        fmt::format("TopicRouteData: bad orderTopicConf entry \"{:.64}\"", item));
                }
                // Checked before multiplying: a long digit run must not overflow.
                if (nums > (max_route_queue_nums - (c - '0')) / 10) {
                    throw CodecError(fmt::format(
                        "TopicRouteData: orderTopicConf entry \"{:.64}\" declares more than {} queues",
                        item,
                        max_route_queue_nums));
                }
                nums = nums * 10 + (c - '0');
            }
            out.emplace_back(item.substr(0, colon), nums);
        }
        if (end == std::string_view::npos) {
            break;
        }
        conf.remove_prefix(end + 1);
    }
    return out;
}

inline void check_queue_count(std::int32_t nums, std::string_view field, std::string_view broker) {
    if (nums > max_route_queue_nums) {
        throw CodecError(fmt::format("TopicRouteData: {} {} of broker \"{:.64}\" is above the limit {}",
                                     field,
                                     nums,
                                     broker,
                                     max_route_queue_nums));
    }
}

inline void check_route_total(std::int64_t total, std::string_view field) {
    if (total > max_route_queues) {
        throw CodecError(
            fmt::format("TopicRouteData: {} queues in all, above the limit {}", field, max_route_queues));
    }
}

/// Rejects queue counts a route view could not hold (see max_route_queue_nums), before anything is allocated.
inline void check_queue_counts(const TopicRouteData& route) {
    std::int64_t reads = 0;
    std::int64_t writes = 0;
    for (const auto& qd : route.queue_datas) {
        check_queue_count(qd.read_queue_nums, "readQueueNums", qd.broker_name);
        check_queue_count(qd.write_queue_nums, "writeQueueNums", qd.broker_name);
        reads += std::max(qd.read_queue_nums, 0);
        writes += std::max(qd.write_queue_nums, 0);
        check_route_total(reads, "readQueueNums");
        check_route_total(writes, "writeQueueNums");
    }
    if (route.order_topic_conf) {
        std::int64_t ordered = 0;
        for (const auto& entry : order_topic_conf_entries(*route.order_topic_conf)) {
            ordered += entry.second;
            check_route_total(ordered, "orderTopicConf");
        }
    }
}

}  // namespace detail

RMQ_DECL TopicRouteData decode_topic_route_data(std::string_view json) {
    const auto j = detail::parse_object(json, detail::topic_route_data_what);
    TopicRouteData out;
    if (detail::member(j, "orderTopicConf") != nullptr) {
        out.order_topic_conf = detail::get_string(j, "orderTopicConf", detail::topic_route_data_what);
    }
    if (const auto* arr = detail::get_array(j, "queueDatas", detail::topic_route_data_what)) {
        for (const auto& q : *arr) {
            out.queue_datas.push_back(detail::read_queue_data(q));
        }
    }
    if (const auto* arr = detail::get_array(j, "brokerDatas", detail::topic_route_data_what)) {
        for (const auto& b : *arr) {
            out.broker_datas.push_back(detail::read_broker_data(b));
        }
    }
    if (const auto* fst = detail::member(j, "filterServerTable")) {
        detail::read_filter_server_table(*fst, out);
    }
    detail::check_queue_counts(out);
    return out;
}

RMQ_DECL std::string encode_topic_route_data(const TopicRouteData& route, RouteJsonForm form) {
    using rmq::detail::JsonEscape;
    const bool standard = form == RouteJsonForm::Standard;
    const JsonEscape esc = standard ? JsonEscape::BrowserCompatible : JsonEscape::Default;
    std::string out = "{";
    bool first = true;
    detail::put_key(out, "brokerDatas", first);
    out.push_back('[');
    for (std::size_t i = 0; i < route.broker_datas.size(); ++i) {
        if (i != 0) {
            out.push_back(',');
        }
        detail::write_broker_data(out, route.broker_datas[i], standard, esc);
    }
    out.push_back(']');
    if (route.filter_server_table) {
        detail::put_key(out, "filterServerTable", first);
        detail::write_filter_server_table(out, *route.filter_server_table, standard, esc);
    }
    if (route.order_topic_conf) {
        detail::put_string(out, "orderTopicConf", *route.order_topic_conf, first, esc);
    }
    detail::put_key(out, "queueDatas", first);
    out.push_back('[');
    for (std::size_t i = 0; i < route.queue_datas.size(); ++i) {
        if (i != 0) {
            out.push_back(',');
        }
        detail::write_queue_data(out, route.queue_datas[i], esc);
    }
    out.append("]}");
    return out;
}

RMQ_DECL TopicRoute to_topic_route(std::string_view topic, const TopicRouteData& route) {
    detail::check_queue_counts(route);
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
        for (const auto& [broker, nums] : detail::order_topic_conf_entries(*route.order_topic_conf)) {
            for (std::int32_t i = 0; i < nums; ++i) {
                out.write_queues.push_back(MessageQueue{std::string(topic), std::string(broker), i});
            }
        }
        return out;
    }
    std::vector<const QueueData*> sorted;
    sorted.reserve(route.queue_datas.size());
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

}  // namespace rmq::remoting
