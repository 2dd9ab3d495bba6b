#pragma once

#include <algorithm>
#include <exception>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/remoting/bodies/reset_offset.hpp>
#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/headers/admin.hpp>
#include <rmq/remoting/headers/fields.hpp>
#include <rmq/remoting/headers/transaction.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/remoting_transport/broker_requests.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

RMQ_DECL void BrokerRequests::set_notification_handler(NotificationHandler handler) {
    const std::lock_guard lock(mutex_);
    handler_ = std::move(handler);
}

/// A MessageQueue as fastjson writes it (fields sorted): also the form of a map key (Java's non-standard
/// object keys, which the admin tools' fastjson reads back as MessageQueue).
inline std::string mq(const MessageQueue& q) {
    nlohmann::ordered_json j{{"brokerName", q.broker_name}, {"queueId", q.queue_id}, {"topic", q.topic}};
    return j.dump();
}

/// Java's ProcessQueueInfo (fields sorted, as fastjson writes them).
inline nlohmann::ordered_json queue_info(const RunningQueueInfo& q) {
    const auto& i = q.info;
    return {{"cachedMsgCount", i.cached_msg_count},
            {"cachedMsgMaxOffset", i.cached_msg_max_offset},
            {"cachedMsgMinOffset", i.cached_msg_min_offset},
            {"cachedMsgSizeInMiB", i.cached_msg_size_in_mib},
            {"commitOffset", q.commit_offset},
            {"droped", i.dropped},
            {"lastConsumeTimestamp", i.last_consume_timestamp},
            {"lastLockTimestamp", i.last_lock_timestamp},
            {"lastPullTimestamp", i.last_pull_timestamp},
            {"locked", i.locked},
            {"transactionMsgCount", i.transaction_msg_count},
            {"transactionMsgMaxOffset", i.transaction_msg_max_offset},
            {"transactionMsgMinOffset", i.transaction_msg_min_offset},
            {"tryUnlockTimes", i.try_unlock_times}};
}

/// Java's ConsumeStatus.
inline nlohmann::ordered_json topic_status(const TopicStats& t) {
    return {{"consumeFailedMsgs", t.consume_failed_msgs},
            {"consumeFailedTPS", t.consume_failed_tps},
            {"consumeOKTPS", t.consume_ok_tps},
            {"consumeRT", t.consume_rt},
            {"pullRT", t.pull_rt},
            {"pullTPS", t.pull_tps}};
}

/// `{key: value, ...}` with MessageQueue object keys, in MessageQueue order (Java's TreeMap).
template <class Value, class Fn>
std::string mq_map(std::vector<std::pair<MessageQueue, Value>> entries, Fn&& value_json) {
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out = "{";
    for (const auto& [q, v] : entries) {
        if (out.size() > 1) {
            out += ',';
        }
        out += mq(q);
        out += ':';
        out += value_json(v);
    }
    out += '}';
    return out;
}

RMQ_DECL void BrokerRequests::set_admin_handler(const std::string& group, AdminHandler handler) {
    const std::lock_guard lock(mutex_);
    if (handler) {
        admin_[group] = std::move(handler);
    } else {
        admin_.erase(group);
    }
}

RMQ_DECL AdminHandler BrokerRequests::admin_handler(const std::string& group) const {
    const std::lock_guard lock(mutex_);
    const auto it = admin_.find(group);
    return it == admin_.end() ? AdminHandler{} : it->second;
}

RMQ_DECL void BrokerRequests::set_transaction_check_handler(const std::string& producer_group,
                                                            TransactionCheckHandler handler) {
    const std::lock_guard lock(mutex_);
    if (handler) {
        transaction_checks_[producer_group] = std::move(handler);
    } else {
        transaction_checks_.erase(producer_group);
    }
}

RMQ_DECL remoting::Command BrokerRequests::check_transaction_state(const std::string& addr,
                                                                   const remoting::Command& req) const {
    TransactionCheck check;
    try {
        const auto h = remoting::header_of<remoting::CheckTransactionStateRequestHeader>(req);
        check.message = remoting::decode_message(req.body_bytes());
        check.broker_addr = addr;
        check.broker_name = h.bname.value_or("");
        check.topic = h.topic.value_or("");
        check.tran_state_table_offset = h.tran_state_table_offset;
        check.commit_log_offset = h.commit_log_offset;
        check.msg_id = h.msg_id.value_or("");
        check.transaction_id = h.transaction_id.value_or("");
        check.offset_msg_id = h.offset_msg_id.value_or("");
    } catch (const std::exception& e) {
        log_line(LogLevel::Warn, "checkTransactionState from {}, decode failed: {}", addr, e.what());
        return remoting::Command{};
    }
    if (const auto uniq = check.message.property_view(property::uniq_client_message_id_keyidx);
        !uniq.empty()) {
        check.message.set_transaction_id(std::string(uniq));
    }
    const auto group = check.message.property(property::producer_group);
    if (!group) {
        log_line(LogLevel::Warn, "checkTransactionState, pick producer group failed");
        return remoting::Command{};
    }
    TransactionCheckHandler handler;
    {
        const std::lock_guard lock(mutex_);
        if (const auto it = transaction_checks_.find(*group); it != transaction_checks_.end()) {
            handler = it->second;
        }
    }
    if (!handler) {
        log_line(LogLevel::Debug, "checkTransactionState, pick producer by group[{}] failed", *group);
        return remoting::Command{};
    }
    try {
        handler(std::move(check));
    } catch (const std::exception& e) {
        log_line(LogLevel::Error, "transaction check handler of {} threw: {}", *group, e.what());
    }
    return remoting::Command{};
}

RMQ_DECL RequestReply BrokerRequests::on_request(const std::string& addr,
                                                 const remoting::Command& req,
                                                 Responder respond) {
    switch (req.code) {
    case remoting::request_code::check_transaction_state:
        return {check_transaction_state(addr, req)};
    case remoting::request_code::notify_consumer_ids_changed:
        return {notify_consumer_ids_changed(req)};
    case remoting::request_code::get_consumer_running_info:
        return {consumer_running_info(req)};
    case remoting::request_code::reset_consumer_client_offset:
        return {reset_offset(req)};
    case remoting::request_code::get_consumer_status_from_client:
        return {consumer_status(req)};
    case remoting::request_code::consume_message_directly:
        return consume_directly(req, std::move(respond));
    default:
        break;
    }
    return {};  // answered with REQUEST_CODE_NOT_SUPPORTED by the connection (two-way only)
}

RMQ_DECL remoting::Command BrokerRequests::notify_consumer_ids_changed(const remoting::Command& req) {
    NotificationHandler h;
    {
        const std::lock_guard lock(mutex_);
        h = handler_;
    }
    const std::string group(req.field("consumerGroup").value_or(""));
    if (h && !group.empty()) {
        try {
            h(ConsumerIdsChanged{group});
        } catch (const std::exception& e) {
            log_line(LogLevel::Error, "notification handler for {} threw: {}", group, e.what());
        }
    }
    return remoting::Command{};
}

RMQ_DECL remoting::Command BrokerRequests::consumer_running_info(const remoting::Command& req) const {
    const auto h = remoting::header_of<remoting::GetConsumerRunningInfoRequestHeader>(req);
    remoting::Command resp;
    const auto body = running_info(h.consumer_group);
    if (!body) {
        resp.code = response_code::system_error;
        resp.remark = fmt::format("The Consumer Group <{}> not exist in this consumer", h.consumer_group);
    } else {
        resp.body = *body;
    }
    return resp;
}

RMQ_DECL std::optional<std::string> BrokerRequests::running_info(const std::string& group) const {
    const auto cd = heartbeats_.consumer(group);
    if (!cd) {
        return std::nullopt;
    }
    ConsumerRunningInfo mine;
    if (const auto admin = admin_handler(group)) {
        mine = admin.running_info();
    }
    std::map<std::string, std::string> props{
        {"PROP_CLIENT_VERSION", "V4_9_8"},
        {"PROP_CONSUMER_START_TIMESTAMP", std::to_string(start_millis_)},
        {"PROP_CONSUME_TYPE", "CONSUME_PASSIVELY"},
        {"PROP_NAMESERVER_ADDR", config_.namesrv_addr},
    };
    for (auto& [k, v] : mine.properties) {
        props[k] = std::move(v);
    }
    auto subs = nlohmann::ordered_json::array();
    for (const auto& sd : cd->subscription_data_set) {
        subs.push_back({{"classFilterMode", sd.class_filter_mode},
                        {"codeSet", sd.code_set},
                        {"expressionType", sd.expression_type},
                        {"subString", sd.sub_string},
                        {"subVersion", sd.sub_version},
                        {"tagsSet", sd.tags_set},
                        {"topic", sd.topic}});
    }
    std::vector<std::pair<MessageQueue, RunningQueueInfo>> queues;
    queues.reserve(mine.queues.size());
    for (auto& q : mine.queues) {
        queues.emplace_back(q.mq, std::move(q));
    }
    auto status = nlohmann::ordered_json::object();
    std::sort(mine.topics.begin(), mine.topics.end(), [](const auto& a, const auto& b) {
        return a.topic < b.topic;
    });
    for (const auto& t : mine.topics) {
        status[t.topic] = topic_status(t);
    }
    // fastjson's field order; mqTable has object keys, so the object is put together by hand.
    return fmt::format(
        R"({{"jstack":"","mqPopTable":{{}},"mqTable":{},"properties":{},"statusTable":{},"subscriptionSet":{}}})",
        mq_map(std::move(queues), [](const RunningQueueInfo& q) { return queue_info(q).dump(); }),
        nlohmann::ordered_json(props).dump(),
        status.dump(),
        subs.dump());
}

/// Java's MQClientInstance.resetOffset: oneway, the consumer does the work (asynchronously).
RMQ_DECL remoting::Command BrokerRequests::reset_offset(const remoting::Command& req) const {
    const auto h = remoting::header_of<remoting::ResetOffsetRequestHeader>(req);
    const auto admin = admin_handler(h.group);
    if (!admin || !admin.reset_offset) {
        return remoting::Command{};
    }
    QueueOffsets offsets;
    if (!req.body.empty()) {
        try {
            offsets = remoting::decode_reset_offset_body(req.body);
        } catch (const std::exception& e) {
            log_line(
                LogLevel::Warn, "group [{}]: bad RESET_CONSUMER_CLIENT_OFFSET body: {}", h.group, e.what());
            return remoting::Command{};
        }
    }
    log_line(LogLevel::Info,
             "group [{}]: broker resets the offsets of {} queues of topic {}",
             h.group,
             offsets.size(),
             h.topic);
    admin.reset_offset(h.topic, std::move(offsets));
    return remoting::Command{};
}

/// Java's GetConsumerStatusBody: the group's in-memory offsets of `topic` (empty for an unknown group).
RMQ_DECL remoting::Command BrokerRequests::consumer_status(const remoting::Command& req) const {
    const auto h = remoting::header_of<remoting::GetConsumerStatusRequestHeader>(req);
    QueueOffsets offsets;
    if (const auto admin = admin_handler(h.group); admin && admin.offset_table) {
        offsets = admin.offset_table(h.topic);
    }
    remoting::Command resp;
    resp.body = fmt::format(R"({{"consumerTable":{{}},"messageQueueTable":{}}})",
                            mq_map(std::move(offsets), [](std::int64_t v) { return std::to_string(v); }));
    return resp;
}

/// Java's ClientRemotingProcessor.consumeMessageDirectly. The listener runs where the consumer runs listeners
/// (AdminHandler::consume_directly answers through a callback), never on the io thread, which a slow listener
/// would stall: the answer goes out through `respond` when it comes.
RMQ_DECL RequestReply BrokerRequests::consume_directly(const remoting::Command& req,
                                                       Responder respond) const {
    const auto h = remoting::header_of<remoting::ConsumeMessageDirectlyResultRequestHeader>(req);
    remoting::Command resp;
    const auto admin = admin_handler(h.consumer_group);
    if (!admin || !admin.consume_directly) {
        resp.code = response_code::system_error;
        resp.remark = fmt::format("The Consumer Group <{}> not exist in this consumer", h.consumer_group);
        return {resp};
    }
    MessageExt msg;
    try {
        msg = remoting::decode_message(req.body_bytes());
    } catch (const std::exception& e) {
        resp.code = response_code::system_error;
        resp.remark = fmt::format("cannot decode the message: {}", e.what());
        return {resp};
    }
    admin.consume_directly(
        std::move(msg), h.broker_name.value_or(""), [respond = std::move(respond)](ConsumeDirectlyResult r) {
            nlohmann::ordered_json j{
                {"autoCommit", r.auto_commit}, {"consumeResult", java_name(r.status)}, {"order", r.order}};
            if (!r.remark.empty()) {
                j["remark"] = r.remark;  // fastjson leaves a null remark out
            }
            j["spentTimeMills"] = r.spent_time_millis;
            remoting::Command answer;
            answer.body = j.dump();
            respond(std::move(answer));
        });
    return {.answer = std::nullopt, .later = true};
}

}  // namespace rmq::detail
