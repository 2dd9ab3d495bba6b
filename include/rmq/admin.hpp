#pragma once

/// @file admin.hpp
/// What a running consumer tells (and lets do) the admin tools that reach it through a broker: mqadmin
/// consumerStatus (GET_CONSUMER_RUNNING_INFO), resetOffsetByTime (RESET_CONSUMER_CLIENT_OFFSET),
/// GET_CONSUMER_STATUS_FROM_CLIENT and consumeMessage / queryMsgById -d (CONSUME_MESSAGE_DIRECTLY). A
/// consumer registers an rmq::AdminHandler with a transport that models rmq::HasAdminHandler
/// (rmq::RemotingTransport); the transport decodes the requests and encodes the answers. See docs/admin.md.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/stats.hpp>

namespace rmq {

/// Java's CMResult: how a CONSUME_MESSAGE_DIRECTLY call ended.
enum class ConsumeDirectlyStatus {
    Success,         ///< CR_SUCCESS: ConsumeSuccess / Success
    Later,           ///< CR_LATER: ReconsumeLater / SuspendCurrentQueueAMoment (or a failure status)
    Rollback,        ///< CR_ROLLBACK: orderly Rollback
    Commit,          ///< CR_COMMIT: orderly Commit
    ThrowException,  ///< CR_THROW_EXCEPTION: the listener threw
    ReturnNull,      ///< CR_RETURN_NULL: the listener returned std::nullopt
};

/// The Java name of `s` ("CR_SUCCESS", ...).
constexpr std::string_view java_name(ConsumeDirectlyStatus s) noexcept {
    switch (s) {
    case ConsumeDirectlyStatus::Success:
        return "CR_SUCCESS";
    case ConsumeDirectlyStatus::Later:
        return "CR_LATER";
    case ConsumeDirectlyStatus::Rollback:
        return "CR_ROLLBACK";
    case ConsumeDirectlyStatus::Commit:
        return "CR_COMMIT";
    case ConsumeDirectlyStatus::ThrowException:
        return "CR_THROW_EXCEPTION";
    case ConsumeDirectlyStatus::ReturnNull:
        return "CR_RETURN_NULL";
    }
    return "CR_THROW_EXCEPTION";
}

/// Java's ConsumeMessageDirectlyResult.
struct ConsumeDirectlyResult {
    /// The consumer consumes orderly.
    bool order = false;
    /// The orderly context's auto_commit() after the call (true for concurrent consumers).
    bool auto_commit = true;
    ConsumeDirectlyStatus status = ConsumeDirectlyStatus::Success;
    /// What the listener threw, when it threw.
    std::string remark{};
    std::int64_t spent_time_millis = 0;
};

/// One owned queue as Java's ProcessQueueInfo shows it (timestamps in wall-clock milliseconds).
struct RunningQueueInfo {
    MessageQueue mq;
    /// The offset store's in-memory value (-1 when none).
    std::int64_t commit_offset = -1;
    ProcessQueue::Info info{};
};

/// What a consumer adds to Java's ConsumerRunningInfo (the transport adds its own properties and the
/// subscriptions it heartbeats).
struct ConsumerRunningInfo {
    /// Name/value pairs (Java: the consumer's configuration fields and PROP_* entries).
    std::vector<std::pair<std::string, std::string>> properties{};
    /// Per owned queue.
    std::vector<RunningQueueInfo> queues{};
    /// Per subscribed topic (Java's statusTable of ConsumeStatus).
    std::vector<TopicStats> topics{};
};

/// (queue, offset) pairs: a reset request or an offset table.
using QueueOffsets = std::vector<std::pair<MessageQueue, std::int64_t>>;

/// The callbacks a consumer registers for its group. Each may be called on a transport thread, at any time
/// until the consumer replaces them with an empty AdminHandler.
struct AdminHandler {
    /// GET_CONSUMER_RUNNING_INFO.
    std::function<ConsumerRunningInfo()> running_info{};
    /// RESET_CONSUMER_CLIENT_OFFSET: drop the cached messages of these queues of `topic` and continue from
    /// these offsets (may complete asynchronously).
    std::function<void(const std::string& topic, QueueOffsets offsets)> reset_offset{};
    /// GET_CONSUMER_STATUS_FROM_CLIENT: the in-memory offsets of the owned queues of `topic`.
    std::function<QueueOffsets(const std::string& topic)> offset_table{};
    /// CONSUME_MESSAGE_DIRECTLY: calls the listener with `msg` (taken from `broker_name`) and `done` once
    /// with the result, from any thread; the offset store is not touched. Must not block the calling
    /// (transport) thread: a consumer runs the listener on its consume threads.
    std::function<void(
        MessageExt msg, const std::string& broker_name, std::function<void(ConsumeDirectlyResult)> done)>
        consume_directly{};

    /// Whether anything is registered.
    explicit operator bool() const noexcept { return static_cast<bool>(running_info); }
};

}  // namespace rmq
