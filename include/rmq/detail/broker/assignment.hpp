#pragma once

/// @file detail/broker/assignment.hpp
/// The embedded broker's QUERY_ASSIGNMENT arithmetic (QueryAssignmentProcessor.doLoadBalance, CLUSTERING):
/// the strategies a 5.3.3 broker knows by name and its POP sharing.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rmq/assignment.hpp>
#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

namespace rmq::detail {

/// The (topic, group) modes set by SET_MESSAGE_REQUEST_MODE (MessageRequestModeManager).
using RequestModeTable = std::map<std::pair<std::string, std::string>, SetMessageRequestModeArgs>;

/// The queues of `mq_all` (sorted) the broker gives `client_id` among `cid_all` (sorted) with strategy
/// `strategy` ("AVG" or "AVG_BY_CIRCLE"), under `mode`: in POP mode a member also takes the queues of the
/// pop_share_queue_num members after it, or (<= 0) pops every queue of each broker (queue id -1). nullopt
/// where the Java broker answers null: an unknown strategy or a strategy that throws (no queue, no member).
/// Sorted, without duplicates.
std::optional<std::vector<MessageQueue>> assign_queues(const std::string& strategy,
                                                       const std::string& group,
                                                       const std::string& client_id,
                                                       const std::vector<MessageQueue>& mq_all,
                                                       const std::vector<std::string>& cid_all,
                                                       const SetMessageRequestModeArgs& mode);

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/assignment.ipp>
#endif
