#pragma once

#include <exception>
#include <set>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/remoting/bodies/consumer_list.hpp>
#include <rmq/remoting/bodies/heartbeat_data.hpp>
#include <rmq/remoting/headers/fields.hpp>
#include <rmq/remoting/headers/membership.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/remoting_transport/membership.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail::remoting_ops {

/// Looks up the routes of the subscribed topics not cached yet, so that their brokers are known.
inline void learn_subscribed_routes(TransportParts& parts, const HeartbeatData& hb) {
    std::set<std::string> topics;
    for (const auto& cd : hb.consumer_data_set) {
        for (const auto& sd : cd.subscription_data_set) {
            topics.insert(sd.topic);
        }
    }
    for (const auto& t : topics) {
        if (parts.routes.contains(t)) {
            continue;
        }
        try {
            parts.name_servers.fetch(t);
        } catch (const std::exception&) {
            // %RETRY% topics exist only after the first heartbeat; others may be created later
        }
    }
}

inline RemotingCaller::Calls to_each(std::vector<std::string> addrs, const remoting::Command& req) {
    RemotingCaller::Calls calls;
    for (auto& a : addrs) {
        calls.emplace_back(std::move(a), req);
    }
    return calls;
}

RMQ_DECL void heartbeat(TransportParts& parts, const HeartbeatData& hb) {
    learn_subscribed_routes(parts, hb);
    parts.heartbeats.remember(hb);
    const bool consumer = !hb.consumer_data_set.empty();
    remoting::Command req;
    req.code = remoting::request_code::heart_beat;
    req.body = remoting::encode_heartbeat_data(hb);
    const auto calls = to_each(parts.routes.broker_addresses(!consumer), req);
    // like Java's sendHeartbeatToAllBroker: a broker that is down must not fail the others (a producer's
    // start, a consumer's heartbeat round); only when no broker took it is it an error
    const auto results = parts.caller.call_all(calls, parts.config.mq_client_api_timeout);
    std::size_t failed = 0;
    for (const auto& [addr, result] : results) {
        try {
            RemotingCaller::throw_first_failure({{addr, result}}, "heartbeat");
        } catch (const std::exception& e) {
            if (++failed == results.size()) {
                throw;
            }
            // every round fails the same way while that broker is down or refuses the client (no ACL)
            log_repeated(LogLevel::Warn, fmt::format("heartbeat {}", addr), "{}", e.what());
        }
    }
}

RMQ_DECL void send_heartbeats_async(TransportParts& parts, const std::string& addr) {
    for (auto& c : parts.heartbeats.commands()) {
        try {
            parts.caller.client().invoke_async(
                addr, std::move(c), parts.config.mq_client_api_timeout, [](auto, auto) {});
        } catch (const std::exception& e) {
            log_repeated(LogLevel::Warn,
                         fmt::format("heartbeat {}", addr),
                         "heartbeat to {} not sent: {}",
                         addr,
                         e.what());
        }
    }
}

RMQ_DECL void unregister_client(TransportParts& parts,
                                const std::string& client_id,
                                const std::string& producer_group,
                                const std::string& consumer_group) {
    parts.heartbeats.forget(client_id, producer_group, consumer_group);
    remoting::UnregisterClientRequestHeader h;
    h.client_id = client_id;
    if (!producer_group.empty()) {
        h.producer_group = producer_group;
    }
    if (!consumer_group.empty()) {
        h.consumer_group = consumer_group;
    }
    const auto calls = to_each(parts.routes.broker_addresses(false),
                               remoting::make_request(remoting::request_code::unregister_client, h));
    for (const auto& [addr, result] : parts.caller.call_all(calls, parts.config.mq_client_api_timeout)) {
        if (const auto* e = std::get_if<std::exception_ptr>(&result)) {
            try {
                std::rethrow_exception(*e);
            } catch (const std::exception& ex) {
                log_line(LogLevel::Warn, "unregister of {} at {} failed: {}", client_id, addr, ex.what());
            }
        }
    }
}

// The union of every broker's answer, not one broker's (Java asks one, at random): a broker that came back
// from a restart, or that a member which started during its outage has not reached yet, knows only the
// members that heartbeated it since; a member counted by one broker is alive. A broker that fails or has no
// member of the group is passed over; only when none answered is it an error.
RMQ_DECL std::vector<std::string>
consumer_id_list(TransportParts& parts, const std::string& topic, const std::string& group) {
    (void)parts.name_servers.topic_route(topic);
    auto addrs = parts.routes.brokers_of(topic);
    if (addrs.empty()) {
        throw Error(fmt::format("no broker address for topic {}", topic));
    }
    remoting::ConsumerGroupRequestHeader h;
    h.consumer_group = group;
    const auto results = parts.caller.call_all(
        to_each(std::move(addrs),
                remoting::make_request(remoting::request_code::get_consumer_list_by_group, h)),
        parts.config.mq_client_api_timeout);
    std::set<std::string> ids;
    std::exception_ptr failure;
    bool answered = false;
    for (const auto& [addr, result] : results) {
        try {
            RemotingCaller::throw_first_failure({{addr, result}}, fmt::format("consumer list of {}", group));
            for (auto& id : remoting::decode_consumer_list(std::get<remoting::Command>(result).body)) {
                ids.insert(std::move(id));
            }
            answered = true;
        } catch (const std::exception&) {
            if (!failure) {
                failure = std::current_exception();
            }
        }
    }
    if (!answered) {
        std::rethrow_exception(failure);
    }
    return {ids.begin(), ids.end()};
}

}  // namespace rmq::detail::remoting_ops
