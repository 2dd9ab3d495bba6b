#pragma once

/// @file remoting/headers/membership.hpp
/// A consumer group's membership and queue locks: GET_CONSUMER_LIST_BY_GROUP / NOTIFY_CONSUMER_IDS_CHANGED,
/// UNREGISTER_CLIENT, LOCK_BATCH_MQ / UNLOCK_BATCH_MQ.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rmq/protocol.hpp>
#include <rmq/remoting/headers/fields.hpp>

namespace rmq::remoting {

/// GET_CONSUMER_LIST_BY_GROUP (38) request header; also NOTIFY_CONSUMER_IDS_CHANGED (40) from the broker.
struct ConsumerGroupRequestHeader {
    static constexpr std::string_view java_name = "GetConsumerListByGroupRequestHeader";
    std::string consumer_group;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("bname", s.bname);
    }
};

/// GET_CONSUMER_LIST_BY_GROUP request header.
using GetConsumerListByGroupRequestHeader = ConsumerGroupRequestHeader;
/// NOTIFY_CONSUMER_IDS_CHANGED request header (broker to client, oneway).
using NotifyConsumerIdsChangedRequestHeader = ConsumerGroupRequestHeader;

/// UNREGISTER_CLIENT (35) request header (note the capital "ID").
struct UnregisterClientRequestHeader {
    static constexpr std::string_view java_name = "UnregisterClientRequestHeader";
    std::string client_id;
    std::optional<std::string> producer_group;
    std::optional<std::string> consumer_group;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("clientID", s.client_id);
        v("producerGroup", s.producer_group);
        v("consumerGroup", s.consumer_group);
        v("bname", s.bname);
    }
};

/// Header of LOCK_BATCH_MQ (41) / UNLOCK_BATCH_MQ (42): only the 5.x RPC field (the body carries the rest).
struct BatchMqRequestHeader {
    static constexpr std::string_view java_name = "LockBatchMqRequestHeader";
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("bname", s.bname);
    }
};

}  // namespace rmq::remoting
