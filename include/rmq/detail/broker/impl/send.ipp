#pragma once

#include <string>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/protocol.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/broker/delays.hpp>
#include <rmq/detail/broker/send.hpp>

namespace rmq::detail {

RMQ_DECL void check_sendable_topic(std::string_view topic) {
    try {
        check_topic(topic);
    } catch (const InvalidArgument& e) {
        throw BrokerError(response_code::system_error, e.what());
    }
    if (topic == auto_create_topic_key_topic || topic == schedule_topic) {
        throw BrokerError(response_code::no_permission,
                          fmt::format("Sending message to topic[{}] is forbidden.", topic));
    }
}

RMQ_DECL MessageExt make_sent_message(const Message& msg,
                                      const MessageQueue& mq,
                                      std::int64_t born_timestamp) {
    MessageExt inner;
    inner.set_topic(mq.topic);
    inner.set_queue_id(mq.queue_id);
    inner.set_flag(msg.flag());
    inner.set_properties(msg.properties());
    inner.set_body(msg.body());
    inner.set_born_timestamp(born_timestamp);
    inner.set_born_host(std::string(in_process_born_host));
    inner.set_property(property_cluster, broker_cluster_name);
    return inner;
}

}  // namespace rmq::detail
