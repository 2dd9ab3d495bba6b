#pragma once

/// @file detail/remoting_transport/assignment.hpp
/// QUERY_ASSIGNMENT and SET_MESSAGE_REQUEST_MODE (5.x broker-side assignment), bodies in JSON, no header.

#include <optional>
#include <vector>

#include <rmq/assignment.hpp>
#include <rmq/config.hpp>

#include <rmq/detail/remoting_transport/parts.hpp>

namespace rmq::detail::remoting_ops {

/// QUERY_ASSIGNMENT to one broker of the topic's route, picked at random as Java's findBrokerAddrByTopic
/// does (its master when known); every broker answers from the same NameServer route and group.
/// rmq::AssignmentUnsupported on a 4.x broker.
std::optional<std::vector<MessageQueueAssignment>> query_assignment(TransportParts& parts,
                                                                    const QueryAssignmentArgs& args);

/// SET_MESSAGE_REQUEST_MODE to the master of every broker of the topic's route (mqadmin setConsumeMode -c
/// sends it to every master of a cluster); the first refusal is thrown after all were asked.
void set_message_request_mode(TransportParts& parts, const SetMessageRequestModeArgs& args);

}  // namespace rmq::detail::remoting_ops

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/assignment.ipp>
#endif
