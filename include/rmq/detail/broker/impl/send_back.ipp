#pragma once

#include <string>

#include <rmq/topic.hpp>

#include <rmq/detail/broker/send_back.hpp>
#include <rmq/detail/broker/store.hpp>

namespace rmq::detail {

/// Where the send-back goes: %DLQ%group without delay, or %RETRY%group with the (defaulted) level.
RMQ_DECL void route_send_back(MessageExt& inner, const MessageExt& original, const SendBackArgs& args) {
    std::int32_t delay_level = args.delay_level;
    if (original.reconsume_times() >= args.max_reconsume_times || delay_level < 0) {
        inner.set_topic(dlq_topic(args.group));
        inner.set_queue_id(0);
        inner.set_delay_time_level(0);  // DELAY=0: a retried message's DELAY would delay it again
        return;
    }
    if (delay_level == 0) {
        delay_level = 3 + original.reconsume_times();
    }
    inner.set_topic(retry_topic(args.group));
    inner.set_queue_id(0);
    inner.set_delay_time_level(delay_level);
}

RMQ_DECL MessageExt make_send_back_message(const MessageExt& original, const SendBackArgs& args) {
    MessageExt inner;
    inner.set_properties(original.properties());
    if (!inner.has_property(property::retry_topic)) {
        inner.set_property(property::retry_topic, original.topic());
    }
    inner.set_property(property::wait_store_msg_ok, "false");  // msgExt.setWaitStoreMsgOK(false)
    route_send_back(inner, original, args);
    inner.set_body(original.body());
    inner.set_flag(original.flag());
    inner.set_sys_flag(original.sys_flag());
    inner.set_born_timestamp(original.born_timestamp());
    inner.set_born_host(original.born_host());
    inner.set_reconsume_times(original.reconsume_times() + 1);
    const auto origin = original.property_view(property::origin_message_id);
    inner.set_property(property::origin_message_id,
                       origin.empty() ? original.offset_msg_id() : std::string(origin));
    return inner;
}

RMQ_DECL bool apply_retry_topic_send(MessageExt& inner, std::int32_t retry_max_times) {
    const std::int32_t reconsume = parse_int_or(inner.property_view(property::reconsume_time), 0);
    const std::int32_t max_times =
        parse_int_or(inner.property_view(property::max_reconsume_times), retry_max_times);
    inner.clear_property(property::reconsume_time);
    inner.clear_property(property::max_reconsume_times);
    inner.set_reconsume_times(reconsume);
    if (reconsume < max_times) {
        return false;
    }
    const std::string group(inner.topic().substr(retry_group_topic_prefix.size()));
    inner.set_topic(dlq_topic(group));
    inner.set_queue_id(0);
    inner.set_delay_time_level(0);
    return true;
}

}  // namespace rmq::detail
