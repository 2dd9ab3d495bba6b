#pragma once

/// @file assignment.hpp
/// RocketMQ 5.x broker-side assignment as a transport sees it (rmq::HasAssignment): QUERY_ASSIGNMENT (400),
/// where the broker splits a topic's queues among a group's live members with a named strategy, and
/// SET_MESSAGE_REQUEST_MODE (401, mqadmin setConsumeMode), which makes a group consume a topic by PULL or
/// POP. See docs/policies/allocate.md (rmq::AllocateByBroker).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>

namespace rmq {

/// Java's MessageRequestMode: how a member consumes an assigned queue. A Java consumer learns it from the
/// broker's assignment (QUERY_ASSIGNMENT, set by `mqadmin setConsumeMode`); rmq's ConsumerConfig field of
/// that name chooses it without the broker (an rmq extension, docs/pop.md).
enum class MessageRequestMode { Pull, Pop };

/// Java's MessageQueueAssignment: one queue the broker gave this member and how to consume it. A POP
/// assignment with queue id -1 means "pop from every queue of the broker" (popShareQueueNum <= 0).
struct MessageQueueAssignment {
    MessageQueue message_queue;
    MessageRequestMode mode = MessageRequestMode::Pull;
    /// Free-form broker extensions (no 5.3.3 broker sets any).
    std::map<std::string, std::string> attachments;

    friend bool operator==(const MessageQueueAssignment&, const MessageQueueAssignment&) = default;
};

/// A QUERY_ASSIGNMENT request (Java's QueryAssignmentRequestBody).
struct QueryAssignmentArgs {
    std::string topic;
    std::string consumer_group;
    std::string client_id;
    /// The broker's name of the allocation strategy: a 5.3.3 broker knows "AVG" and "AVG_BY_CIRCLE".
    std::string strategy_name{"AVG"};
    MessageModel message_model = MessageModel::Clustering;

    friend bool operator==(const QueryAssignmentArgs&, const QueryAssignmentArgs&) = default;
};

/// A SET_MESSAGE_REQUEST_MODE request (Java's SetMessageRequestModeRequestBody).
struct SetMessageRequestModeArgs {
    std::string topic;
    std::string consumer_group;
    MessageRequestMode mode = MessageRequestMode::Pull;
    /// POP only: each member also pops the queues of the N members after it in the client id list; <= 0:
    /// every member pops every queue.
    std::int32_t pop_share_queue_num = 0;

    friend bool operator==(const SetMessageRequestModeArgs&, const SetMessageRequestModeArgs&) = default;
};

/// A broker without broker-side assignment (RocketMQ 4.x) answered QUERY_ASSIGNMENT or
/// SET_MESSAGE_REQUEST_MODE with REQUEST_CODE_NOT_SUPPORTED: rmq::AllocateByBroker needs a 5.x broker.
class AssignmentUnsupported : public BrokerError {
public:
    using BrokerError::BrokerError;
};

/// "PULL" / "POP" (Java's enum names).
[[nodiscard]] constexpr std::string_view to_string(MessageRequestMode m) noexcept {
    return m == MessageRequestMode::Pop ? "POP" : "PULL";
}

}  // namespace rmq
