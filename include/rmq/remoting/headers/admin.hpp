#pragma once

/// @file remoting/headers/admin.hpp
/// Requests a broker sends a consumer: RESET_CONSUMER_CLIENT_OFFSET, GET_CONSUMER_RUNNING_INFO,
/// CONSUME_MESSAGE_DIRECTLY, GET_CONSUMER_STATUS_FROM_CLIENT.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rmq/protocol.hpp>
#include <rmq/remoting/headers/fields.hpp>

namespace rmq::remoting {

/// RESET_CONSUMER_CLIENT_OFFSET (220) request header (broker to client, oneway; body: ResetOffsetBody).
struct ResetOffsetRequestHeader {
    static constexpr std::string_view java_name = "ResetOffsetRequestHeader";
    std::string topic;
    std::string group;
    std::int64_t timestamp = 0;
    bool is_force = false;
    /// 5.x: one queue only (-1 = all).
    std::optional<std::int32_t> queue_id;
    /// 5.x: explicit offset.
    std::optional<std::int64_t> offset;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("group", s.group);
        v("timestamp", s.timestamp);
        v("isForce", s.is_force);
        v("queueId", s.queue_id);
        v("offset", s.offset);
    }
};

/// GET_CONSUMER_RUNNING_INFO (307) request header (broker to client, answered with ConsumerRunningInfo).
struct GetConsumerRunningInfoRequestHeader {
    static constexpr std::string_view java_name = "GetConsumerRunningInfoRequestHeader";
    std::string consumer_group;
    std::string client_id;
    std::optional<bool> jstack_enable;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("clientId", s.client_id);
        v("jstackEnable", s.jstack_enable);
    }
};

/// CONSUME_MESSAGE_DIRECTLY (309) request header (broker to client; body: one message record).
struct ConsumeMessageDirectlyResultRequestHeader {
    static constexpr std::string_view java_name = "ConsumeMessageDirectlyResultRequestHeader";
    std::string consumer_group;
    std::optional<std::string> client_id;
    std::optional<std::string> msg_id;
    std::optional<std::string> broker_name;
    /// 5.x.
    std::optional<std::string> topic;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("clientId", s.client_id);
        v("msgId", s.msg_id);
        v("brokerName", s.broker_name);
        v("topic", s.topic);
    }
};

/// GET_CONSUMER_STATUS_FROM_CLIENT (221) request header (deprecated broker to client request).
struct GetConsumerStatusRequestHeader {
    static constexpr std::string_view java_name = "GetConsumerStatusRequestHeader";
    std::string topic;
    std::string group;
    std::optional<std::string> client_addr;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("group", s.group);
        v("clientAddr", s.client_addr);
    }
};

}  // namespace rmq::remoting
