#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/error.hpp>
#include <rmq/remoting/compression.hpp>
#include <rmq/remoting/headers/fields.hpp>
#include <rmq/remoting/headers/offsets.hpp>
#include <rmq/remoting/headers/send.hpp>
#include <rmq/remoting/headers/send_back.hpp>
#include <rmq/remoting/headers/transaction.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/net/refusal.hpp>
#include <rmq/detail/remoting_transport/send.hpp>

namespace rmq::detail::remoting_ops {

using Properties = rmq::Properties;

inline std::int32_t parse_int(const std::string& s) {
    try {
        return static_cast<std::int32_t>(std::stol(s));
    } catch (const std::exception&) {
        return 0;
    }
}

/// The send header's producer group: the message's PGROUP, else the group a producer heartbeat registered
/// (the Producer does not pass its group with each message), else Java's default name.
inline std::string producer_group_for(TransportParts& parts, const Message& msg) {
    if (auto g = msg.property(property::producer_group)) {
        return *g;
    }
    return parts.heartbeats.first_producer_group().value_or("DEFAULT_PRODUCER");
}

/// A retry topic's reconsume counts travel in the header, not as properties.
inline void move_reconsume_times(remoting::SendMessageRequestHeader& h, Properties& props) {
    if (auto it = props.find(property::reconsume_time); it != props.end()) {
        h.reconsume_times = parse_int(it->second);
        props.erase(it);
    }
    if (auto it = props.find(property::max_reconsume_times); it != props.end()) {
        h.max_reconsume_times = parse_int(it->second);
        props.erase(it);
    }
}

/// The body as sent (zlib above the threshold) and the sysFlag bits that describe it.
inline std::pair<std::string, std::int32_t>
body_and_sys_flag(const RemotingConfig& config, const Message& msg, const Properties& props) {
    std::int32_t sys_flag = 0;
    std::string body = msg.body();
    if (config.compress_msg_body_over_howmuch > 0 &&
        body.size() >= static_cast<std::size_t>(config.compress_msg_body_over_howmuch)) {
        body = remoting::compress(body, remoting::CompressionType::Zlib, config.compress_level);
        sys_flag |= remoting::message_sys_flag::compressed |
                    remoting::message_sys_flag::compression_bits(remoting::CompressionType::Zlib);
    }
    const auto prepared = props.find(property::transaction_prepared);
    if (prepared != props.end() && prepared->second == "true") {
        sys_flag |= remoting::message_sys_flag::transaction_prepared_type;
    }
    return {std::move(body), sys_flag};
}

inline remoting::SendMessageRequestHeader
send_header(TransportParts& parts, const Message& msg, const MessageQueue& mq, Properties& props) {
    remoting::SendMessageRequestHeader h;
    h.producer_group = producer_group_for(parts, msg);
    h.topic = mq.topic;
    h.queue_id = mq.queue_id;
    h.born_timestamp = system_clock()->wall_millis();
    h.flag = msg.flag();
    h.reconsume_times = 0;
    h.unit_mode = false;
    h.batch = false;
    h.bname = mq.broker_name;
    if (is_retry_topic(mq.topic)) {
        move_reconsume_times(h, props);
    }
    return h;
}

/// SendStatus of a SEND_MESSAGE_V2 answer; rmq::BrokerError for the codes that are failures.
inline SendStatus
send_status(const remoting::Command& resp, const MessageQueue& mq, const std::string& addr) {
    switch (resp.code) {
    case response_code::success:
        return SendStatus::SendOk;
    case response_code::flush_disk_timeout:
        return SendStatus::FlushDiskTimeout;
    case response_code::flush_slave_timeout:
        return SendStatus::FlushSlaveTimeout;
    case response_code::slave_not_available:
        return SendStatus::SlaveNotAvailable;
    default: {
        const auto remark = resp.remark.value_or("(no remark)");
        throw_broker_error(resp.code, remark, fmt::format("send to {} at {}: {}", mq, addr, remark));
    }
    }
}

// Java's sendKernelImpl: a broker no cached route names makes it look the queue's topic up
// (tryToFindTopicPublishInfo, which falls back to the create-topic-key route for a topic not created yet),
// so a fresh producer's send(msg, mq) works.
inline std::string master_for(TransportParts& parts, const MessageQueue& mq) {
    if (auto addr = parts.routes.master_address(mq.broker_name)) {
        return *addr;
    }
    try {
        (void)parts.name_servers.topic_route(mq.topic);
    } catch (const BrokerError& e) {
        if (e.code() != response_code::topic_not_exist) {
            throw;
        }
        (void)parts.name_servers.topic_route(std::string(auto_create_topic_key_topic));
    }
    return parts.routes.require_master(mq.broker_name);
}

/// MQVersion.Version.V5_0_0_SNAPSHOT: the first broker version with timer messages.
inline constexpr std::int32_t first_timer_version = 412;

/// A 4.x broker ignores the TIMER_* properties and delivers at once, so a timer message is refused before it
/// is sent there; the broker's version comes from its answers (GET_MAX_OFFSET when none was seen yet).
inline void check_timer_support(TransportParts& parts,
                                const Message& msg,
                                const MessageQueue& mq,
                                const std::string& addr) {
    if (!msg.is_timer_message() || msg.delay_time_level() > 0) {
        return;
    }
    auto version = parts.caller.peer_version(addr);
    if (!version) {
        remoting::GetMaxOffsetRequestHeader h;
        h.topic = mq.topic;
        h.queue_id = mq.queue_id;
        h.bname = mq.broker_name;
        version = parts.caller.call(addr, remoting::make_request(remoting::request_code::get_max_offset, h))
                      .version;
    }
    if (*version < first_timer_version) {
        throw UnsupportedByBroker(
            fmt::format(
                "broker {} at {} (MQVersion {}) has no timer messages (TIMER_DELIVER_MS / TIMER_DELAY_SEC "
                "/ TIMER_DELAY_MS need RocketMQ 5.x); not sent",
                mq.broker_name,
                addr,
                *version),
            *version);
    }
}

/// A SEND_MESSAGE_V2 request for `msg`; `props` gets its properties as sent (UNIQ_KEY added).
inline remoting::Command
send_request(TransportParts& parts, const Message& msg, const MessageQueue& mq, Properties& props) {
    props = msg.properties();
    if (!props.contains(property::uniq_client_message_id_keyidx)) {
        props.insert_or_assign(property::uniq_client_message_id_keyidx, parts.ids.next());
    }
    auto h = send_header(parts, msg, mq, props);
    auto [body, sys_flag] = body_and_sys_flag(parts.config, msg, props);
    h.sys_flag = sys_flag;
    h.properties = encode_properties(props);
    const remoting::SendMessageRequestHeaderV2 v2{h};
    return remoting::make_request(remoting::request_code::send_message_v2, v2, std::move(body));
}

/// MQClientAPIImpl.processSendResponse: the broker's region (MSG_REGION) and trace switch (TRACE_ON), extra
/// fields of the response that traces name.
inline void read_trace_fields(const remoting::Command& resp, SendResult& r) {
    if (resp.ext_fields) {
        r.region_id = std::string(resp.ext_fields->get(property::msg_region).value_or(""));
        r.trace_on = resp.ext_fields->get(property::trace_switch).value_or("") != "false";
    }
}

/// A refusal of a timer message (MESSAGE_ILLEGAL) as rmq::TimerRejected.
inline SendStatus timer_send_status(const remoting::Command& resp,
                                    const Message& msg,
                                    const MessageQueue& mq,
                                    const std::string& addr) {
    if (resp.code == response_code::message_illegal && msg.is_timer_message()) {
        const auto remark = resp.remark.value_or("(no remark)");
        throw TimerRejected(resp.code, fmt::format("send to {} at {}: {}", mq, addr, remark));
    }
    return send_status(resp, mq, addr);
}

/// The SendResult of a SEND_MESSAGE_V2 answer (rmq::BrokerError / rmq::TimerRejected for a refusal).
inline SendResult send_result(const remoting::Command& resp,
                              const Message& msg,
                              std::string msg_id,
                              const MessageQueue& mq,
                              const std::string& addr) {
    SendResult r;
    r.status = timer_send_status(resp, msg, mq, addr);
    const auto rh = remoting::header_of<remoting::SendMessageResponseHeader>(resp);
    r.msg_id = std::move(msg_id);
    r.offset_msg_id = rh.msg_id;
    r.message_queue = MessageQueue{mq.topic, mq.broker_name, rh.queue_id};
    r.queue_offset = rh.queue_offset;
    r.transaction_id = rh.transaction_id.value_or("");
    read_trace_fields(resp, r);
    return r;
}

RMQ_DECL SendResult send(TransportParts& parts, const Message& msg, const MessageQueue& mq) {
    Properties props;
    auto req = send_request(parts, msg, mq, props);
    const std::string addr = master_for(parts, mq);
    check_timer_support(parts, msg, mq, addr);
    const auto resp = parts.caller.call(addr, req, parts.config.send_msg_timeout);
    return send_result(resp, msg, props.at(property::uniq_client_message_id_keyidx), mq, addr);
}

RMQ_DECL void
send_async(TransportParts& parts, const Message& msg, const MessageQueue& mq, SendCompletion done) {
    Properties props;
    auto req = send_request(parts, msg, mq, props);
    std::string addr = master_for(parts, mq);
    check_timer_support(parts, msg, mq, addr);
    // What the answer needs of the message: the statuses read whether it is a timer message.
    Message shape(msg.topic(), std::string());
    if (msg.is_timer_message()) {
        shape.set_properties(msg.properties());
    }
    auto on_answer = [shape = std::move(shape),
                      msg_id = props.at(property::uniq_client_message_id_keyidx),
                      mq,
                      addr,
                      done = std::move(done)](std::optional<remoting::Command> resp,
                                              const std::exception_ptr& error) mutable {
        SendResult r;
        std::exception_ptr failed = error ? fresh_exception(error) : nullptr;
        if (!failed) {
            try {
                r = send_result(*resp, shape, std::move(msg_id), mq, addr);
            } catch (...) {
                failed = std::current_exception();
            }
        }
        done(std::move(r), failed);
    };
    parts.caller.client().invoke_async(
        addr, std::move(req), parts.config.send_msg_timeout, std::move(on_answer));
}

RMQ_DECL void send_oneway(TransportParts& parts, const Message& msg, const MessageQueue& mq) {
    Properties props;
    auto req = send_request(parts, msg, mq, props);
    const std::string addr = master_for(parts, mq);
    check_timer_support(parts, msg, mq, addr);
    req.mark_oneway();
    parts.caller.client().invoke_oneway(addr, std::move(req), parts.config.send_msg_timeout);
}

RMQ_DECL void end_transaction(TransportParts& parts, const EndTransactionArgs& args) {
    const std::string addr = args.broker_addr.empty()
                                 ? master_for(parts, MessageQueue{args.topic, args.broker_name, 0})
                                 : args.broker_addr;
    auto req = remoting::make_request(remoting::request_code::end_transaction,
                                      remoting::EndTransactionRequestHeader::from(args));
    if (!args.remark.empty()) {
        req.remark = args.remark;
    }
    req.mark_oneway();
    parts.caller.client().invoke_oneway(addr, std::move(req), parts.config.send_msg_timeout);
}

/// A SEND_BATCH_MESSAGE request for `msgs`; `ids` gets their UNIQ_KEYs comma-separated (added to those
/// without).
inline remoting::Command batch_request(TransportParts& parts,
                                       std::span<const Message> msgs,
                                       const MessageQueue& mq,
                                       std::string& ids) {
    if (msgs.empty()) {
        throw InvalidArgument("send_batch: the batch is empty");
    }
    std::vector<Message> entries(msgs.begin(), msgs.end());
    for (auto& m : entries) {
        if (!m.has_property(property::uniq_client_message_id_keyidx)) {
            m.set_property(property::uniq_client_message_id_keyidx, parts.ids.next());
        }
        ids +=
            (ids.empty() ? "" : ",") + std::string(m.property_view(property::uniq_client_message_id_keyidx));
    }
    // Java's MessageBatch also carries a UNIQ_KEY of its own, which a 5.x broker appends to every stored
    // message, where it overrides the message's (apache/rocketmq#9416): every message of the batch would be
    // consumed with one id. The batch carries only the first message's WAIT; it is never compressed.
    Properties props;
    if (const auto wait = entries.front().property(property::wait_store_msg_ok)) {
        props.insert_or_assign(property::wait_store_msg_ok, *wait);
    }
    auto h = send_header(parts, Message(mq.topic, std::string()), mq, props);
    h.batch = true;
    h.properties = encode_properties(props);
    const remoting::SendMessageRequestHeaderV2 v2{h};
    return remoting::make_request(
        remoting::request_code::send_batch_message, v2, remoting::encode_messages(entries));
}

/// The SendResult of a SEND_BATCH_MESSAGE answer (rmq::BrokerError for a refusal).
inline SendResult batch_result(const remoting::Command& resp,
                               std::string ids,
                               const MessageQueue& mq,
                               const std::string& addr) {
    SendResult r;
    r.status = send_status(resp, mq, addr);
    const auto rh = remoting::header_of<remoting::SendMessageResponseHeader>(resp);
    r.msg_id = std::move(ids);
    r.offset_msg_id = rh.msg_id;
    r.message_queue = MessageQueue{mq.topic, mq.broker_name, rh.queue_id};
    r.queue_offset = rh.queue_offset;
    r.transaction_id = rh.transaction_id.value_or("");
    read_trace_fields(resp, r);
    return r;
}

RMQ_DECL SendResult send_batch(TransportParts& parts, std::span<const Message> msgs, const MessageQueue& mq) {
    std::string ids;
    const auto req = batch_request(parts, msgs, mq, ids);
    const std::string addr = master_for(parts, mq);
    const auto resp = parts.caller.call(addr, req, parts.config.send_msg_timeout);
    return batch_result(resp, std::move(ids), mq, addr);
}

RMQ_DECL void send_batch_async(TransportParts& parts,
                               std::span<const Message> msgs,
                               const MessageQueue& mq,
                               SendCompletion done) {
    std::string ids;
    auto req = batch_request(parts, msgs, mq, ids);
    std::string addr = master_for(parts, mq);
    auto on_answer = [ids = std::move(ids), mq, addr, done = std::move(done)](
                         std::optional<remoting::Command> resp, const std::exception_ptr& error) mutable {
        SendResult r;
        std::exception_ptr failed = error ? fresh_exception(error) : nullptr;
        if (!failed) {
            try {
                r = batch_result(*resp, std::move(ids), mq, addr);
            } catch (...) {
                failed = std::current_exception();
            }
        }
        done(std::move(r), failed);
    };
    parts.caller.client().invoke_async(
        addr, std::move(req), parts.config.send_msg_timeout, std::move(on_answer));
}

RMQ_DECL void send_back(TransportParts& parts, const SendBackArgs& args) {
    const std::string& broker = args.message.broker_name();
    const std::string addr = broker.empty() ? args.message.store_host() : parts.routes.require_master(broker);
    const auto h = remoting::ConsumerSendMsgBackRequestHeader::from(
        args, broker.empty() ? std::nullopt : std::optional<std::string>(broker));
    const auto resp =
        parts.caller.call(addr, remoting::make_request(remoting::request_code::consumer_send_msg_back, h));
    RemotingCaller::check_success(resp, fmt::format("send back of {} to {}", args.message.msg_id(), addr));
}

}  // namespace rmq::detail::remoting_ops
