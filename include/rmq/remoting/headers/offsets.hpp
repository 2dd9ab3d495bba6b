#pragma once

/// @file remoting/headers/offsets.hpp
/// Consumer offset and queue offset requests: QUERY_CONSUMER_OFFSET, UPDATE_CONSUMER_OFFSET, GET_MAX_OFFSET,
/// GET_MIN_OFFSET, SEARCH_OFFSET_BY_TIMESTAMP and the one-offset answer they share.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rmq/protocol.hpp>
#include <rmq/remoting/headers/fields.hpp>

namespace rmq::remoting {

/// QUERY_CONSUMER_OFFSET (14) request header.
struct QueryConsumerOffsetRequestHeader {
    static constexpr std::string_view java_name = "QueryConsumerOffsetRequestHeader";
    std::string consumer_group;
    std::string topic;
    std::int32_t queue_id = 0;
    /// 5.x: false asks for QUERY_NOT_FOUND instead of offset 0 when nothing is stored.
    std::optional<bool> set_zero_if_not_found;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("setZeroIfNotFound", s.set_zero_if_not_found);
        v("bname", s.bname);
    }
};

/// Response header carrying one offset (QUERY_CONSUMER_OFFSET, GET_MAX/MIN_OFFSET,
/// SEARCH_OFFSET_BY_TIMESTAMP). Absent in a QUERY_NOT_FOUND answer.
struct OffsetResponseHeader {
    static constexpr std::string_view java_name = "OffsetResponseHeader";
    std::optional<std::int64_t> offset;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("offset", s.offset);
    }
};

/// UPDATE_CONSUMER_OFFSET (15) request header.
struct UpdateConsumerOffsetRequestHeader {
    static constexpr std::string_view java_name = "UpdateConsumerOffsetRequestHeader";
    std::string consumer_group;
    std::string topic;
    std::int32_t queue_id = 0;
    std::int64_t commit_offset = 0;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("commitOffset", s.commit_offset);
        v("bname", s.bname);
    }
};

/// GET_MAX_OFFSET (30) request header.
struct GetMaxOffsetRequestHeader {
    static constexpr std::string_view java_name = "GetMaxOffsetRequestHeader";
    std::string topic;
    std::int32_t queue_id = 0;
    /// 5.x, default true.
    std::optional<bool> committed;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("committed", s.committed);
        v("bname", s.bname);
    }
};

/// GET_MIN_OFFSET (31) request header.
struct GetMinOffsetRequestHeader {
    static constexpr std::string_view java_name = "GetMinOffsetRequestHeader";
    std::string topic;
    std::int32_t queue_id = 0;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("bname", s.bname);
    }
};

/// SEARCH_OFFSET_BY_TIMESTAMP (29) request header.
struct SearchOffsetRequestHeader {
    static constexpr std::string_view java_name = "SearchOffsetRequestHeader";
    std::string topic;
    std::int32_t queue_id = 0;
    /// Store timestamp, ms since the epoch.
    std::int64_t timestamp = 0;
    /// 5.x: "lower" (default) or "upper".
    std::optional<std::string> boundary_type;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("timestamp", s.timestamp);
        v("boundaryType", s.boundary_type);
        v("bname", s.bname);
    }
};

}  // namespace rmq::remoting
