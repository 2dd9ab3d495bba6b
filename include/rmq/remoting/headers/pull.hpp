#pragma once

/// @file remoting/headers/pull.hpp
/// PULL_MESSAGE / LITE_PULL_MESSAGE request and response headers.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rmq/protocol.hpp>
#include <rmq/remoting/headers/fields.hpp>

namespace rmq::remoting {

/// PULL_MESSAGE (11) / LITE_PULL_MESSAGE (361) request header (FastCodesHeader).
struct PullMessageRequestHeader {
    static constexpr std::string_view java_name = "PullMessageRequestHeader";
    std::string consumer_group;
    std::string topic;
    std::int32_t queue_id = 0;
    std::int64_t queue_offset = 0;
    std::int32_t max_msg_nums = 32;
    std::int32_t sys_flag = 0;
    std::int64_t commit_offset = 0;
    std::int64_t suspend_timeout_millis = 0;
    std::optional<std::string> subscription;
    std::int64_t sub_version = 0;
    std::optional<std::string> expression_type;
    /// 5.x only.
    std::optional<std::int32_t> max_msg_bytes;
    /// Target broker name (5.x RPC field; required through a 5.x Proxy, ignored by plain brokers).
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("consumerGroup", s.consumer_group);
        v("topic", s.topic);
        v("queueId", s.queue_id);
        v("queueOffset", s.queue_offset);
        v("maxMsgNums", s.max_msg_nums);
        v("sysFlag", s.sys_flag);
        v("commitOffset", s.commit_offset);
        v("suspendTimeoutMillis", s.suspend_timeout_millis);
        v("subscription", s.subscription);
        v("subVersion", s.sub_version);
        v("expressionType", s.expression_type);
        v("maxMsgBytes", s.max_msg_bytes);
        v("bname", s.bname);
    }

    /// The header for rmq::PullArgs (the queue's broker name goes to `bname`).
    static PullMessageRequestHeader from(const PullArgs& args) {
        PullMessageRequestHeader h;
        h.consumer_group = args.consumer_group;
        h.topic = args.mq.topic;
        h.queue_id = args.mq.queue_id;
        h.queue_offset = args.queue_offset;
        h.max_msg_nums = args.max_msg_nums;
        h.sys_flag = args.sys_flag;
        h.commit_offset = args.commit_offset;
        h.suspend_timeout_millis = args.suspend_timeout_millis;
        h.subscription = args.subscription;
        h.sub_version = args.sub_version;
        h.expression_type = args.expression_type;
        h.bname = args.mq.broker_name;
        return h;
    }
};

/// PULL_MESSAGE response header (FastCodesHeader).
struct PullMessageResponseHeader {
    static constexpr std::string_view java_name = "PullMessageResponseHeader";
    std::int64_t suggest_which_broker_id = 0;
    std::int64_t next_begin_offset = 0;
    std::int64_t min_offset = 0;
    std::int64_t max_offset = 0;
    /// 5.x static topics: add to every message's queue offset.
    std::optional<std::int64_t> offset_delta;
    std::optional<std::int32_t> topic_sys_flag;
    std::optional<std::int32_t> group_sys_flag;
    std::optional<std::int32_t> forbidden_type;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("suggestWhichBrokerId", s.suggest_which_broker_id);
        v("nextBeginOffset", s.next_begin_offset);
        v("minOffset", s.min_offset);
        v("maxOffset", s.max_offset);
        v("offsetDelta", s.offset_delta);
        v("topicSysFlag", s.topic_sys_flag);
        v("groupSysFlag", s.group_sys_flag);
        v("forbiddenType", s.forbidden_type);
    }
};

}  // namespace rmq::remoting
