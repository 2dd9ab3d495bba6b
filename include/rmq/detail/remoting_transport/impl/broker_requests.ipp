#pragma once

#include <exception>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/remoting/headers.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/remoting_transport/broker_requests.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

RMQ_DECL void BrokerRequests::set_notification_handler(NotificationHandler handler) {
    const std::lock_guard lock(mutex_);
    handler_ = std::move(handler);
}

RMQ_DECL std::optional<remoting::Command> BrokerRequests::on_request(const std::string& addr,
                                                                     const remoting::Command& req) {
    (void)addr;
    if (req.code == remoting::request_code::notify_consumer_ids_changed) {
        return notify_consumer_ids_changed(req);
    }
    if (req.code == remoting::request_code::get_consumer_running_info) {
        return consumer_running_info(req);
    }
    return std::nullopt;  // answered with REQUEST_CODE_NOT_SUPPORTED by the connection (two-way only)
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
    nlohmann::ordered_json j;
    j["jstack"] = "";
    j["mqTable"] = nlohmann::ordered_json::object();
    j["properties"] = {
        {"PROP_CLIENT_VERSION", "V4_9_8"},
        {"PROP_CONSUMER_START_TIMESTAMP", std::to_string(start_millis_)},
        {"PROP_CONSUME_TYPE", "CONSUME_PASSIVELY"},
        {"PROP_NAMESERVER_ADDR", config_.namesrv_addr},
    };
    j["statusTable"] = nlohmann::ordered_json::object();
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
    j["subscriptionSet"] = std::move(subs);
    return j.dump();
}

}  // namespace rmq::detail
