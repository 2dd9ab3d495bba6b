#pragma once

/// @file remoting/bodies/topic_route_data.hpp
/// The GET_ROUTEINFO_BY_TOPIC response body (Java's TopicRouteData, QueueData, BrokerData), in either JSON
/// form a NameServer writes, and the read / write queues a Java client derives from it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>

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

/// Most queues one QueueData (readQueueNums, writeQueueNums) or one orderTopicConf entry may declare. Apache
/// RocketMQ itself sets no upper bound (5.3.3's broker and mqadmin validate topic names, not queue counts;
/// defaultTopicQueueNums is 8, mqadmin's default 8), but a broker keeps a ConsumeQueue directory and a
/// thread-visible offset per queue, so real topics have tens, at most a few thousand. 65536 is far above any
/// real topic and keeps a route's queue lists a few MB when a broken or hostile NameServer declares 2^31-1.
inline constexpr std::int32_t max_route_queue_nums = 65536;

/// Most read (or write) queues a whole route may declare, summed over its QueueDatas / orderTopicConf entries
/// (256 brokers of 1024 queues).
inline constexpr std::int64_t max_route_queues = 262144;

/// Parses a GET_ROUTEINFO_BY_TOPIC body in either form (unquoted or quoted brokerAddrs keys).
/// Throws CodecError on malformed JSON or mistyped fields, or queue counts above max_route_queue_nums /
/// max_route_queues (also in orderTopicConf).
TopicRouteData decode_topic_route_data(std::string_view json);

/// Writes a TopicRouteData as a Java peer does (`form`: see RouteJsonForm).
std::string encode_topic_route_data(const TopicRouteData& route,
                                    RouteJsonForm form = RouteJsonForm::Fastjson);

/// The queues of `topic` a consumer reads and a producer writes, as the Java client derives them
/// (MQClientInstance.topicRouteData2TopicSubscribeInfo / topicRouteData2TopicPublishInfo):
/// read queues: every readable QueueData's 0..readQueueNums-1 (sorted like Java's MessageQueue);
/// write queues: QueueDatas sorted by broker name, writable and with a master address, 0..writeQueueNums-1 —
/// unless orderTopicConf (`broker:count;...`) is non-empty, which then lists the write queues.
/// Throws CodecError, before allocating, when the counts exceed max_route_queue_nums / max_route_queues.
TopicRoute to_topic_route(std::string_view topic, const TopicRouteData& route);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/bodies/impl/topic_route_data.ipp>
#endif
