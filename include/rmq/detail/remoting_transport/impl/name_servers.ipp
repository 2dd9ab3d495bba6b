#pragma once

#include <exception>
#include <optional>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/remoting/headers/fields.hpp>
#include <rmq/remoting/headers/route.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/net/refusal.hpp>
#include <rmq/detail/remoting_transport/name_servers.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

inline remoting::Command route_request(const std::string& topic) {
    remoting::GetRouteInfoRequestHeader h;
    h.topic = topic;
    h.accept_standard_json_only = true;
    return remoting::make_request(remoting::request_code::get_routeinfo_by_topic, h);
}

inline std::string_view trim(std::string_view item) {
    while (!item.empty() && item.front() == ' ') {
        item.remove_prefix(1);
    }
    while (!item.empty() && item.back() == ' ') {
        item.remove_suffix(1);
    }
    return item;
}

RMQ_DECL NameServers::NameServers(RemotingCaller& caller, RouteCache& cache, std::string_view namesrv_addr)
    : caller_(caller)
    , cache_(cache)
    , addrs_(split(namesrv_addr)) {}

RMQ_DECL TopicRoute NameServers::topic_route(const std::string& topic) {
    if (auto cached = cache_.find(topic)) {
        return remoting::to_topic_route(topic, *cached);
    }
    return remoting::to_topic_route(topic, fetch(topic));
}

RMQ_DECL remoting::TopicRouteData NameServers::fetch(const std::string& topic) {
    const auto req = route_request(topic);
    std::exception_ptr last;
    const std::size_t n = addrs_.size();
    const std::size_t first = index_.fetch_add(1) % n;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string& addr = addrs_[(first + i) % n];
        remoting::Command resp;
        try {
            resp = caller_.call(addr, req);
        } catch (const std::exception&) {
            last = std::current_exception();
            continue;  // next NameServer
        }
        if (resp.code != response_code::success) {
            const auto remark = resp.remark.value_or("no route");
            throw_broker_error(resp.code, remark, fmt::format("route of {}: {}", topic, remark));
        }
        auto data = remoting::decode_topic_route_data(resp.body);
        store(topic, data);
        return data;
    }
    std::rethrow_exception(last);
}

RMQ_DECL void NameServers::refresh_async() {
    for (const auto& topic : cache_.topics()) {
        caller_.client().invoke_async(
            next_address(),
            route_request(topic),
            caller_.config().mq_client_api_timeout,
            [this, topic](std::optional<remoting::Command> resp, const std::exception_ptr& e) {
                if (e || !resp || resp->code != response_code::success) {
                    return;
                }
                try {
                    store(topic, remoting::decode_topic_route_data(resp->body));
                } catch (const std::exception& ex) {
                    log_repeated(
                        LogLevel::Warn, fmt::format("route {}", topic), "route of {}: {}", topic, ex.what());
                }
            });
    }
}

RMQ_DECL std::vector<std::string> NameServers::split(std::string_view text) {
    std::vector<std::string> out;
    while (!text.empty()) {
        const std::size_t end = text.find(';');
        const std::string_view item = trim(text.substr(0, end));
        if (!item.empty()) {
            if (item.rfind(':') == std::string_view::npos) {
                throw InvalidArgument(fmt::format("namesrv_addr: '{}' is not host:port", item));
            }
            out.emplace_back(item);
        }
        if (end == std::string_view::npos) {
            break;
        }
        text.remove_prefix(end + 1);
    }
    if (out.empty()) {
        throw InvalidArgument("RemotingConfig.namesrv_addr is empty (want \"host:port;host:port\")");
    }
    return out;
}

RMQ_DECL void NameServers::store(const std::string& topic, const remoting::TopicRouteData& data) {
    const auto old = cache_.find(topic);
    const auto fresh = cache_.store(topic, data);
    if (!fresh.empty() && on_new_brokers_) {
        on_new_brokers_(fresh);
    }
    if (old && *old != data && on_route_changed_) {
        on_route_changed_(topic);
    }
}

RMQ_DECL const std::string& NameServers::next_address() {
    return addrs_[index_.fetch_add(1) % addrs_.size()];
}

}  // namespace rmq::detail
