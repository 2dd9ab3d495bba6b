#pragma once

#include <cstddef>
#include <exception>
#include <random>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/remoting/bodies/assignment.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/remoting_transport/assignment.hpp>

namespace rmq::detail::remoting_ops {

namespace assignment_detail {

/// The broker addresses of `topic`'s route (looked up when not cached); rmq::Error when it has none.
inline std::vector<std::string> brokers_of(TransportParts& parts, const std::string& topic) {
    (void)parts.name_servers.topic_route(topic);
    auto addrs = parts.routes.brokers_of(topic);
    if (addrs.empty()) {
        throw Error(fmt::format("no broker address for topic {}", topic));
    }
    return addrs;
}

inline remoting::Command body_request(std::int32_t code, std::string body) {
    remoting::Command cmd;
    cmd.code = code;
    cmd.body = std::move(body);
    return cmd;
}

}  // namespace assignment_detail

RMQ_DECL std::optional<std::vector<MessageQueueAssignment>>
query_assignment(TransportParts& parts, const QueryAssignmentArgs& args) {
    const auto addrs = assignment_detail::brokers_of(parts, args.topic);
    thread_local std::mt19937 random{std::random_device{}()};
    std::uniform_int_distribution<std::size_t> pick(0, addrs.size() - 1);
    const auto resp =
        parts.caller.call(addrs[pick(random)],
                          assignment_detail::body_request(remoting::request_code::query_assignment,
                                                          remoting::encode_query_assignment_request(args)));
    remoting::check_assignment_answer(
        resp, fmt::format("QUERY_ASSIGNMENT of {} for group {}", args.topic, args.consumer_group));
    return remoting::decode_query_assignment_response(resp.body);
}

RMQ_DECL void set_message_request_mode(TransportParts& parts, const SetMessageRequestModeArgs& args) {
    const auto body = remoting::encode_set_message_request_mode(args);
    std::exception_ptr failure;
    for (const auto& addr : assignment_detail::brokers_of(parts, args.topic)) {
        try {
            const auto resp = parts.caller.call(
                addr,
                assignment_detail::body_request(remoting::request_code::set_message_request_mode, body));
            remoting::check_assignment_answer(resp,
                                              fmt::format("SET_MESSAGE_REQUEST_MODE of {} for group {} at {}",
                                                          args.topic,
                                                          args.consumer_group,
                                                          addr));
        } catch (const std::exception&) {
            if (!failure) {
                failure = std::current_exception();
            }
        }
    }
    if (failure) {
        std::rethrow_exception(failure);
    }
}

}  // namespace rmq::detail::remoting_ops
