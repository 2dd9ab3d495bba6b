#pragma once

/// @file remoting/headers/send.hpp
/// SEND_MESSAGE / SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE request headers and their response header.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rmq/protocol.hpp>
#include <rmq/remoting/headers/fields.hpp>

namespace rmq::remoting {

/// SEND_MESSAGE (10) request header, V1 field names.
struct SendMessageRequestHeader {
    static constexpr std::string_view java_name = "SendMessageRequestHeader";
    std::string producer_group;
    std::string topic;
    std::string default_topic{"TBW102"};
    std::int32_t default_topic_queue_nums = 4;
    std::int32_t queue_id = 0;
    std::int32_t sys_flag = 0;
    std::int64_t born_timestamp = 0;
    std::int32_t flag = 0;
    std::optional<std::string> properties;
    std::optional<std::int32_t> reconsume_times;
    std::optional<bool> unit_mode;
    std::optional<std::int32_t> max_reconsume_times;
    std::optional<bool> batch;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("producerGroup", s.producer_group);
        v("topic", s.topic);
        v("defaultTopic", s.default_topic);
        v("defaultTopicQueueNums", s.default_topic_queue_nums);
        v("queueId", s.queue_id);
        v("sysFlag", s.sys_flag);
        v("bornTimestamp", s.born_timestamp);
        v("flag", s.flag);
        v("properties", s.properties);
        v("reconsumeTimes", s.reconsume_times);
        v("unitMode", s.unit_mode);
        v("maxReconsumeTimes", s.max_reconsume_times);
        v("batch", s.batch);
        v("bname", s.bname);
    }
};

/// SEND_MESSAGE_V2 (310) / SEND_BATCH_MESSAGE (320) request header: the V1 fields under one-letter keys
/// a..n (FastCodesHeader; `n` is the broker name).
struct SendMessageRequestHeaderV2 {
    static constexpr std::string_view java_name = "SendMessageRequestHeaderV2";
    SendMessageRequestHeader v1;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("a", s.v1.producer_group);
        v("b", s.v1.topic);
        v("c", s.v1.default_topic);
        v("d", s.v1.default_topic_queue_nums);
        v("e", s.v1.queue_id);
        v("f", s.v1.sys_flag);
        v("g", s.v1.born_timestamp);
        v("h", s.v1.flag);
        v("i", s.v1.properties);
        v("j", s.v1.reconsume_times);
        v("k", s.v1.unit_mode);
        v("l", s.v1.max_reconsume_times);
        v("m", s.v1.batch);
        v("n", s.v1.bname);
    }
};

/// SEND_MESSAGE(_V2) response header (FastCodesHeader).
struct SendMessageResponseHeader {
    static constexpr std::string_view java_name = "SendMessageResponseHeader";
    /// Offset message id (comma-separated for batches).
    std::string msg_id;
    std::int32_t queue_id = 0;
    std::int64_t queue_offset = 0;
    std::optional<std::string> transaction_id;
    std::optional<std::string> batch_uniq_id;
    /// 5.3 recall handle.
    std::optional<std::string> recall_handle;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("msgId", s.msg_id);
        v("queueId", s.queue_id);
        v("queueOffset", s.queue_offset);
        v("transactionId", s.transaction_id);
        v("batchUniqId", s.batch_uniq_id);
        v("recallHandle", s.recall_handle);
    }
};

}  // namespace rmq::remoting
