#pragma once

/// @file remoting/headers/send_back.hpp
/// CONSUMER_SEND_MSG_BACK: a message the listener failed, sent back for a retry.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rmq/protocol.hpp>
#include <rmq/remoting/headers/fields.hpp>

namespace rmq::remoting {

/// CONSUMER_SEND_MSG_BACK (36) request header.
struct ConsumerSendMsgBackRequestHeader {
    static constexpr std::string_view java_name = "ConsumerSendMsgBackRequestHeader";
    /// The message's commit-log offset.
    std::int64_t offset = 0;
    std::string group;
    std::int32_t delay_level = 0;
    std::optional<std::string> origin_msg_id;
    std::optional<std::string> origin_topic;
    bool unit_mode = false;
    std::optional<std::int32_t> max_reconsume_times;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("offset", s.offset);
        v("group", s.group);
        v("delayLevel", s.delay_level);
        v("originMsgId", s.origin_msg_id);
        v("originTopic", s.origin_topic);
        v("unitMode", s.unit_mode);
        v("maxReconsumeTimes", s.max_reconsume_times);
        v("bname", s.bname);
    }

    /// The header for rmq::SendBackArgs (MQClientAPIImpl.consumerSendMessageBack): msgId is the message's
    /// msg_id() (UNIQ_KEY if present), originTopic its topic.
    static ConsumerSendMsgBackRequestHeader from(const SendBackArgs& args,
                                                 std::optional<std::string> bname = {}) {
        ConsumerSendMsgBackRequestHeader h;
        h.offset = args.message.commit_log_offset();
        h.group = args.group;
        h.delay_level = args.delay_level;
        h.origin_msg_id = args.message.msg_id();
        h.origin_topic = args.message.topic();
        h.max_reconsume_times = args.max_reconsume_times;
        h.bname = std::move(bname);
        return h;
    }
};

}  // namespace rmq::remoting
