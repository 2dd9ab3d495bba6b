#pragma once

#include <algorithm>
#include <exception>
#include <utility>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/error.hpp>

#include <rmq/detail/remoting_transport/assignment.hpp>
#include <rmq/detail/remoting_transport/locks.hpp>
#include <rmq/detail/remoting_transport/membership.hpp>
#include <rmq/detail/remoting_transport/offsets.hpp>
#include <rmq/detail/remoting_transport/pop.hpp>
#include <rmq/detail/remoting_transport/pull.hpp>
#include <rmq/detail/remoting_transport/send.hpp>
#include <rmq/detail/remoting_transport/state.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

RMQ_DECL RemotingTransportState::RemotingTransportState(RemotingConfig config)
    : config_(validated(std::move(config)))
    , client_(options(config_), config_.credentials)
    , caller_(client_, config_)
    , name_servers_(caller_, routes_, config_.namesrv_addr)
    , broker_requests_(config_, heartbeats_, system_clock()->wall_millis())
    , parts_{config_, caller_, routes_, name_servers_, heartbeats_, ids_} {
    name_servers_.on_new_brokers([this](const std::vector<std::string>& addrs) {
        for (const auto& addr : addrs) {
            remoting_ops::send_heartbeats_async(parts_, addr);
        }
    });
    client_.set_request_handler(
        [this](const std::string& addr, const remoting::Command& req, Responder respond) {
            return broker_requests_.on_request(addr, req, std::move(respond));
        });
    client_.set_connect_hook([this](const std::string& addr) { return on_connect(addr); });
    name_servers_.on_route_changed([this](const std::string& topic) { route_changed(topic); });
    client_.set_connection_event_hook(
        [this](const std::string& addr, bool connected) { on_connection_event(addr, connected); });
    schedule_refresh();
    client_.run_after(route_loop_millis(), [this] { route_loop(); });
}

RMQ_DECL RemotingTransportState::~RemotingTransportState() {
    stopping_.store(true);
    client_.shutdown();
}

RMQ_DECL TopicRoute RemotingTransportState::topic_route(const std::string& topic) {
    return name_servers_.topic_route(topic);
}

RMQ_DECL void RemotingTransportState::heartbeat(const HeartbeatData& hb) {
    remoting_ops::heartbeat(parts_, hb);
}

RMQ_DECL void RemotingTransportState::unregister_client(const std::string& client_id,
                                                        const std::string& producer_group,
                                                        const std::string& consumer_group) {
    remoting_ops::unregister_client(parts_, client_id, producer_group, consumer_group);
}

RMQ_DECL std::vector<std::string> RemotingTransportState::consumer_id_list(const std::string& topic,
                                                                           const std::string& group) {
    return remoting_ops::consumer_id_list(parts_, topic, group);
}

RMQ_DECL void RemotingTransportState::set_notification_handler(NotificationHandler handler) {
    broker_requests_.set_notification_handler(std::move(handler));
}

RMQ_DECL void RemotingTransportState::set_route_change_handler(const std::string& key,
                                                               RouteChangeHandler handler) {
    const std::lock_guard lock(route_handlers_mutex_);
    if (handler) {
        route_handlers_[key] = std::move(handler);
    } else {
        route_handlers_.erase(key);
    }
}

RMQ_DECL void RemotingTransportState::route_changed(const std::string& topic) {
    std::vector<RouteChangeHandler> handlers;
    {
        const std::lock_guard lock(route_handlers_mutex_);
        for (const auto& [key, h] : route_handlers_) {
            handlers.push_back(h);
        }
    }
    log_line(LogLevel::Info, "route of {} changed", topic);
    if (heartbeats_.has_consumers()) {
        for (const auto& addr : routes_.brokers_of(topic)) {
            remoting_ops::send_heartbeats_async(parts_, addr);
        }
    }
    for (const auto& h : handlers) {
        try {
            h(topic);
        } catch (const std::exception& e) {
            log_line(LogLevel::Error, "route change handler for {} threw: {}", topic, e.what());
        }
    }
}

RMQ_DECL void RemotingTransportState::pull(const PullArgs& args, PullCallback callback, PostToCaller post) {
    remoting_ops::pull(parts_, args, std::move(callback), std::move(post));
}

RMQ_DECL std::optional<std::int64_t> RemotingTransportState::query_consumer_offset(const std::string& group,
                                                                                   const MessageQueue& mq) {
    return remoting_ops::query_consumer_offset(parts_, group, mq);
}

RMQ_DECL void RemotingTransportState::update_consumer_offset(const std::string& group,
                                                             const MessageQueue& mq,
                                                             std::int64_t offset) {
    remoting_ops::update_consumer_offset(parts_, group, mq, offset);
}

RMQ_DECL std::int64_t RemotingTransportState::min_offset(const MessageQueue& mq) {
    return remoting_ops::min_offset(parts_, mq);
}

RMQ_DECL std::int64_t RemotingTransportState::max_offset(const MessageQueue& mq) {
    return remoting_ops::max_offset(parts_, mq);
}

RMQ_DECL std::int64_t RemotingTransportState::search_offset(const MessageQueue& mq, std::int64_t timestamp) {
    return remoting_ops::search_offset(parts_, mq, timestamp);
}

RMQ_DECL std::vector<MessageQueue> RemotingTransportState::lock_batch(const std::string& group,
                                                                      const std::string& client_id,
                                                                      const std::vector<MessageQueue>& mqs) {
    return remoting_ops::lock_batch(parts_, group, client_id, mqs);
}

RMQ_DECL void RemotingTransportState::unlock_batch(const std::string& group,
                                                   const std::string& client_id,
                                                   const std::vector<MessageQueue>& mqs) {
    remoting_ops::unlock_batch(parts_, group, client_id, mqs);
}

RMQ_DECL SendResult RemotingTransportState::send(const Message& msg, const MessageQueue& mq) {
    return remoting_ops::send(parts_, msg, mq);
}

RMQ_DECL void RemotingTransportState::end_transaction(const EndTransactionArgs& args) {
    remoting_ops::end_transaction(parts_, args);
}

RMQ_DECL void RemotingTransportState::send_oneway(const Message& msg, const MessageQueue& mq) {
    remoting_ops::send_oneway(parts_, msg, mq);
}

RMQ_DECL void
RemotingTransportState::send_async(const Message& msg, const MessageQueue& mq, SendCompletion done) {
    remoting_ops::send_async(parts_, msg, mq, std::move(done));
}

RMQ_DECL SendResult RemotingTransportState::send_batch(std::span<const Message> msgs,
                                                       const MessageQueue& mq) {
    return remoting_ops::send_batch(parts_, msgs, mq);
}

RMQ_DECL void RemotingTransportState::send_batch_async(std::span<const Message> msgs,
                                                       const MessageQueue& mq,
                                                       SendCompletion done) {
    remoting_ops::send_batch_async(parts_, msgs, mq, std::move(done));
}

RMQ_DECL PopResult RemotingTransportState::pop_message(const PopArgs& args) {
    return remoting_ops::pop_message(parts_, pop_waits_, args);
}

RMQ_DECL void RemotingTransportState::pop_message(const PopArgs& args, PopCompletion done) {
    remoting_ops::pop_message(parts_, pop_waits_, args, std::move(done));
}

RMQ_DECL std::optional<std::vector<MessageQueueAssignment>>
RemotingTransportState::query_assignment(const QueryAssignmentArgs& args) {
    return remoting_ops::query_assignment(parts_, args);
}

RMQ_DECL void RemotingTransportState::set_message_request_mode(const SetMessageRequestModeArgs& args) {
    remoting_ops::set_message_request_mode(parts_, args);
}

RMQ_DECL void RemotingTransportState::ack_message(const AckArgs& args) {
    remoting_ops::ack_message(parts_, args);
}

RMQ_DECL void RemotingTransportState::ack_message(const AckArgs& args, AckCompletion done) {
    remoting_ops::ack_message(parts_, args, std::move(done));
}

RMQ_DECL void RemotingTransportState::batch_ack_message(const BatchAckArgs& args) {
    remoting_ops::batch_ack_message(parts_, args);
}

RMQ_DECL void RemotingTransportState::batch_ack_message(const BatchAckArgs& args, AckCompletion done) {
    remoting_ops::batch_ack_message(parts_, args, std::move(done));
}

RMQ_DECL std::string RemotingTransportState::change_invisible_time(const ChangeInvisibleTimeArgs& args) {
    return remoting_ops::change_invisible_time(parts_, args);
}

RMQ_DECL void RemotingTransportState::send_back(const SendBackArgs& args) {
    remoting_ops::send_back(parts_, args);
}

RMQ_DECL std::string RemotingTransportState::master_address(const std::string& broker_name) const {
    return routes_.require_master(broker_name);
}

RMQ_DECL RemotingConfig RemotingTransportState::validated(RemotingConfig config) {
    (void)NameServers::split(config.namesrv_addr);  // throws for a malformed list
    if (config.mq_client_api_timeout <= 0 || config.send_msg_timeout <= 0 ||
        config.poll_name_server_interval <= 0 || config.connect_timeout_millis <= 0 ||
        config.route_check_interval_millis < 0) {
        throw InvalidArgument("RemotingConfig: timeouts and intervals must be positive "
                              "(route_check_interval_millis: 0 or more)");
    }
    if (config.client_oneway_semaphore_value <= 0) {
        throw InvalidArgument(
            fmt::format("RemotingConfig: client_oneway_semaphore_value must be positive, not {}",
                        config.client_oneway_semaphore_value));
    }
    return config;
}

RMQ_DECL ConnectionOptions RemotingTransportState::options(const RemotingConfig& c) {
    ConnectionOptions o;
    o.connect_timeout_millis = c.connect_timeout_millis;
    o.serialize_type = c.serialize_type;
    o.tls = c.tls;
    o.namespace_v2 = c.namespace_v2;
    o.client_oneway_semaphore_value = c.client_oneway_semaphore_value;
    return o;
}

RMQ_DECL std::vector<remoting::Command> RemotingTransportState::on_connect(const std::string& addr) {
    if (!routes_.is_broker_address(addr)) {
        return {};
    }
    return heartbeats_.commands();
}

RMQ_DECL void RemotingTransportState::on_connection_event(const std::string& addr, bool connected) {
    if (stopping_.load() || !routes_.is_broker_address(addr)) {
        return;
    }
    log_line(LogLevel::Info,
             "broker {} {}: re-reading the routes",
             addr,
             connected ? "is reachable again" : "connection lost");
    watch_until_millis_ = system_clock()->steady_millis() + route_watch_millis;
    name_servers_.refresh_async();  // the route loop looks again every second
}

RMQ_DECL std::int64_t RemotingTransportState::route_loop_millis() const noexcept {
    const std::int64_t check = config_.route_check_interval_millis;
    return check > 0 ? std::min(check, route_watch_period_millis) : route_watch_period_millis;
}

RMQ_DECL void RemotingTransportState::route_loop() {
    if (stopping_.load()) {
        return;
    }
    const std::int64_t now = system_clock()->steady_millis();
    const std::int64_t check = config_.route_check_interval_millis;
    const bool watch = now < watch_until_millis_;
    // due within half a period: a timer that fires a little early must not skip a whole period
    const bool check_due = check > 0 && now - last_route_read_millis_ + route_loop_millis() / 2 >= check &&
                           heartbeats_.has_consumers();
    if (watch || check_due) {
        last_route_read_millis_ = now;
        try {
            name_servers_.refresh_async();
        } catch (const std::exception& e) {
            log_repeated(LogLevel::Warn, "route check", "route check failed: {}", e.what());
        }
    }
    client_.run_after(route_loop_millis(), [this] { route_loop(); });
}

RMQ_DECL void RemotingTransportState::schedule_refresh() {
    if (stopping_.load()) {
        return;
    }
    client_.run_after(config_.poll_name_server_interval, [this] {
        if (stopping_.load()) {
            return;
        }
        try {
            name_servers_.refresh_async();
            for (const auto& addr : routes_.broker_addresses(false)) {
                remoting_ops::send_heartbeats_async(parts_, addr);
            }
        } catch (const std::exception& e) {
            log_repeated(LogLevel::Warn, "route refresh", "route refresh failed: {}", e.what());
        }
        schedule_refresh();
    });
}

}  // namespace rmq::detail
