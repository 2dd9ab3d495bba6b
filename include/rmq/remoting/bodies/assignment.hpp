#pragma once

/// @file remoting/bodies/assignment.hpp
/// QUERY_ASSIGNMENT and SET_MESSAGE_REQUEST_MODE bodies (Java's QueryAssignmentRequestBody,
/// QueryAssignmentResponseBody, SetMessageRequestModeRequestBody), and the answer check they share.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/assignment.hpp>
#include <rmq/config.hpp>
#include <rmq/remoting/command.hpp>

namespace rmq::remoting {

/// QueryAssignmentRequestBody as fastjson writes it (keys sorted).
std::string encode_query_assignment_request(const QueryAssignmentArgs& args);

/// Parses a QueryAssignmentRequestBody; rmq::remoting::CodecError for a bad message model.
QueryAssignmentArgs decode_query_assignment_request(std::string_view json);

/// QueryAssignmentResponseBody; nullopt writes `{}` (Java's null set: "no valid assignment").
std::string
encode_query_assignment_response(const std::optional<std::vector<MessageQueueAssignment>>& assignments);

/// Parses a QueryAssignmentResponseBody: nullopt when the set is absent (the broker had no answer: unknown
/// strategy or topic, no member); entries without a queue are skipped, as Java's client does.
std::optional<std::vector<MessageQueueAssignment>> decode_query_assignment_response(std::string_view json);

/// SetMessageRequestModeRequestBody as fastjson writes it.
std::string encode_set_message_request_mode(const SetMessageRequestModeArgs& args);

/// Parses a SetMessageRequestModeRequestBody.
SetMessageRequestModeArgs decode_set_message_request_mode(std::string_view json);

/// "PULL" / "POP" to the enum; CodecError otherwise.
MessageRequestMode parse_message_request_mode(std::string_view name);

/// Throws for an answer other than SUCCESS: rmq::AssignmentUnsupported for REQUEST_CODE_NOT_SUPPORTED (a
/// 4.x broker), rmq::AccessDenied for NO_PERMISSION, else rmq::BrokerError; `what` names the request.
void check_assignment_answer(const Command& response, std::string_view what);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/bodies/impl/assignment.ipp>
#endif
