#pragma once

/// @file protocol.hpp
/// The vocabulary clients and brokers exchange, shared by every transport: enums, request arguments and
/// results named after RocketMQ's request codes and headers.

#include <array>
#include <charconv>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/subscription.hpp>

namespace rmq {

/// Java's MessageModel.
enum class MessageModel { Broadcasting, Clustering };

/// Java's ConsumeType.
enum class ConsumeType { ConsumeActively, ConsumePassively };

/// Java's ConsumeFromWhere (the deprecated values behave like LastOffset, as in Java).
enum class ConsumeFromWhere {
    LastOffset,
    LastOffsetAndFromMinWhenBootFirst,
    MinOffset,
    MaxOffset,
    FirstOffset,
    Timestamp,
};

/// RocketMQ response codes (ResponseCode / RemotingSysResponseCode of the 4.9/5.x remoting layer and
/// brokers): the ones rmq produces or handles, one list for every transport and the wire format.
namespace response_code {
inline constexpr int success = 0;
inline constexpr int system_error = 1;
inline constexpr int system_busy = 2;
inline constexpr int request_code_not_supported = 3;
inline constexpr int transaction_failed = 4;
inline constexpr int flush_disk_timeout = 10;
inline constexpr int slave_not_available = 11;
inline constexpr int flush_slave_timeout = 12;
inline constexpr int message_illegal = 13;
inline constexpr int service_not_available = 14;
inline constexpr int version_not_supported = 15;
inline constexpr int no_permission = 16;
inline constexpr int topic_not_exist = 17;
inline constexpr int topic_exist_already = 18;
inline constexpr int pull_not_found = 19;
inline constexpr int pull_retry_immediately = 20;
inline constexpr int pull_offset_moved = 21;
inline constexpr int query_not_found = 22;
inline constexpr int subscription_parse_failed = 23;
inline constexpr int subscription_not_exist = 24;
inline constexpr int subscription_not_latest = 25;
inline constexpr int subscription_group_not_exist = 26;
inline constexpr int filter_data_not_exist = 27;
inline constexpr int filter_data_not_latest = 28;
/// 5.x only.
inline constexpr int invalid_parameter = 29;
inline constexpr int transaction_should_commit = 200;
inline constexpr int transaction_should_rollback = 201;
inline constexpr int transaction_state_unknow = 202;
inline constexpr int transaction_state_group_wrong = 203;
inline constexpr int no_buyer_id = 204;
inline constexpr int not_in_current_unit = 205;
inline constexpr int consumer_not_online = 206;
inline constexpr int consume_msg_timeout = 207;
inline constexpr int no_message = 208;
inline constexpr int flow_control = 215;
/// 5.x POP: too many pops are held for long polling on the queue.
inline constexpr int polling_full = 209;
/// 5.x POP: nothing was found within the poll time.
inline constexpr int polling_timeout = 210;
inline constexpr int not_leader_for_queue = 501;
inline constexpr int illegal_operation = 604;
/// 5.3 servers shutting down gracefully (only to requests with version > 475).
inline constexpr int go_away = 1500;
}  // namespace response_code

/// Java's PullStatus.
enum class PullStatus { Found, NoNewMsg, NoMatchedMsg, OffsetIllegal };

/// Java's PullSysFlag bits.
namespace pull_sys_flag {
inline constexpr std::int32_t commit_offset = 0x1;
inline constexpr std::int32_t suspend = 0x2;
inline constexpr std::int32_t subscription = 0x4;
inline constexpr std::int32_t class_filter = 0x8;
inline constexpr std::int32_t lite_pull = 0x10;
}  // namespace pull_sys_flag

/// A PULL_MESSAGE request (PullMessageRequestHeader).
struct PullArgs {
    std::string consumer_group;
    MessageQueue mq;
    std::int64_t queue_offset = 0;
    std::int32_t max_msg_nums = 32;
    /// PullSysFlag bits (commit offset, suspend, subscription).
    std::int32_t sys_flag = 0;
    std::int64_t commit_offset = 0;
    /// How long the broker may hold the request (long polling); 0 means answer at once.
    std::int64_t suspend_timeout_millis = 15000;
    /// The client's expression, used by the broker only when the SUBSCRIPTION flag is set.
    std::string subscription;
    std::int64_t sub_version = 0;
    std::string expression_type{expression_type_tag};
};

/// A PULL_MESSAGE answer, already decoded (PullResultExt).
struct PullResult {
    PullStatus status = PullStatus::NoNewMsg;
    std::int64_t next_begin_offset = 0;
    std::int64_t min_offset = 0;
    std::int64_t max_offset = 0;
    /// Broker id the next pull should go to (0 = master).
    std::int64_t suggest_which_broker_id = 0;
    std::vector<MessageExt> msg_found_list;
};

/// The queue's bounds a pull reported, which Java stamps on each found message as MIN_OFFSET / MAX_OFFSET. An
/// order service whose `on_pulled` takes it stamps them itself (later, off the pulling thread).
struct PullOffsets {
    std::int64_t min_offset = 0;
    std::int64_t max_offset = 0;

    /// Writes MIN_OFFSET and MAX_OFFSET on each message (Java's processPullResult).
    void stamp(std::span<MessageExt> msgs) const {
        std::array<char, 24> min_buf{};
        std::array<char, 24> max_buf{};
        const std::string_view min_text(
            min_buf.data(), std::to_chars(min_buf.begin(), min_buf.end(), min_offset).ptr - min_buf.data());
        const std::string_view max_text(
            max_buf.data(), std::to_chars(max_buf.begin(), max_buf.end(), max_offset).ptr - max_buf.data());
        static_assert(property::max_offset < property::min_offset, "placed in one pass: ascending names");
        for (auto& msg : msgs) {
            msg.set_property({{property::max_offset, max_text}, {property::min_offset, min_text}});
        }
    }
};

/// The outcome of an asynchronous request: a value or the broker's error (code and remark).
template <class T>
class Outcome {
public:
    // Implicit on purpose: completions return values directly.
    // NOLINTNEXTLINE(google-explicit-constructor)
    Outcome(T value)
        : state_(std::move(value)) {}

    Outcome(int code, std::string remark)
        : state_(Failure{code, std::move(remark)}) {}

    [[nodiscard]] bool ok() const noexcept { return state_.index() == 0; }

    [[nodiscard]] T& value() & { return std::get<0>(state_); }

    [[nodiscard]] const T& value() const& { return std::get<0>(state_); }

    [[nodiscard]] T&& value() && { return std::get<0>(std::move(state_)); }

    /// The response code (response_code::success when ok()).
    [[nodiscard]] int code() const noexcept {
        return ok() ? response_code::success : std::get_if<1>(&state_)->code;  // get_if: no throw path
    }

    /// The broker's remark (empty when ok()).
    [[nodiscard]] const std::string& remark() const noexcept {
        static const std::string empty;
        return ok() ? empty : std::get_if<1>(&state_)->remark;
    }

private:
    struct Failure {
        int code = 0;
        std::string remark;
    };

    std::variant<T, Failure> state_;
};

/// Completion of an asynchronous pull; may run on any thread of the transport.
using PullCallback = std::function<void(Outcome<PullResult>)>;

/// Queues a task on the caller's own event loop, to run after the caller returns (never inline).
using PostToCaller = std::function<void(std::function<void()>)>;

/// What one consumer group member reports in a heartbeat (ConsumerData).
struct ConsumerData {
    std::string group_name;
    ConsumeType consume_type = ConsumeType::ConsumePassively;
    MessageModel message_model = MessageModel::Clustering;
    ConsumeFromWhere consume_from_where = ConsumeFromWhere::LastOffset;
    std::vector<SubscriptionData> subscription_data_set;
    bool unit_mode = false;
};

/// A HEART_BEAT request (HeartbeatData).
struct HeartbeatData {
    std::string client_id;
    std::vector<ConsumerData> consumer_data_set;
    std::vector<std::string> producer_groups;
};

/// Java's SendStatus.
enum class SendStatus { SendOk, FlushDiskTimeout, FlushSlaveTimeout, SlaveNotAvailable };

/// Java's SendResult.
struct SendResult {
    SendStatus status = SendStatus::SendOk;
    std::string msg_id;
    std::string offset_msg_id;
    MessageQueue message_queue;
    std::int64_t queue_offset = 0;
    /// The broker's transactionId (its UNIQ_KEY of the message; empty when the broker sent none).
    std::string transaction_id;
    /// The broker's region (the response's MSG_REGION; empty when it named none). Traces name it.
    std::string region_id;
    /// False when the broker turned tracing off (the response's TRACE_ON=false): the send is not traced.
    bool trace_on = true;
};

/// What an asynchronous send reports, once: the result, or the exception send() would have thrown.
using SendCompletion = std::function<void(SendResult, std::exception_ptr)>;

/// Java's LocalTransactionState: what a producer's local transaction decided about a half message.
enum class LocalTransactionState { CommitMessage, RollbackMessage, Unknow };

/// An END_TRANSACTION request (EndTransactionRequestHeader, oneway): commits, rolls back or leaves pending
/// (Unknow) the half message at `commit_log_offset`.
struct EndTransactionArgs {
    /// The broker holding the half message (the header's bname).
    std::string broker_name;
    /// When set (an answer to a check-back), the address of the broker that asked; else broker_name's master.
    std::string broker_addr;
    std::string topic;
    std::string producer_group;
    /// The half message's queue offset (in the half topic).
    std::int64_t tran_state_table_offset = 0;
    std::int64_t commit_log_offset = 0;
    LocalTransactionState state = LocalTransactionState::Unknow;
    bool from_transaction_check = false;
    /// The message's UNIQ_KEY.
    std::string msg_id;
    /// Empty: not sent.
    std::string transaction_id;
    /// The request's remark (why the state is Unknow, e.g. the listener threw); empty: none.
    std::string remark;
};

/// A broker's CHECK_TRANSACTION_STATE (CheckTransactionStateRequestHeader and the half message): it asks the
/// producer group of a half message still unresolved after transactionTimeOut what became of it.
struct TransactionCheck {
    /// The address of the broker that asked (where the answer goes); empty on the embedded broker.
    std::string broker_addr;
    /// The header's bname (5.x brokers; empty from 4.x).
    std::string broker_name;
    /// The header's topic: the half topic the message waits in.
    std::string topic;
    std::int64_t tran_state_table_offset = 0;
    std::int64_t commit_log_offset = 0;
    std::string msg_id;
    std::string transaction_id;
    std::string offset_msg_id;
    /// The half message, with its real topic and queue id back.
    MessageExt message;
};

/// Where a transport hands a broker's CHECK_TRANSACTION_STATE; may run on any thread of the transport and
/// must not block.
using TransactionCheckHandler = std::function<void(TransactionCheck)>;

/// A CONSUMER_SEND_MSG_BACK request (ConsumerSendMsgBackRequestHeader).
struct SendBackArgs {
    std::string group;
    /// The message as the consumer received it (its commit log offset and msg ids locate the original).
    MessageExt message;
    /// -1: straight to the DLQ; 0: the broker chooses 3 + reconsume times; > 0: that level.
    std::int32_t delay_level = 0;
    std::int32_t max_reconsume_times = 16;
};

/// The broker-to-client notifications a consumer reacts to.
struct ConsumerIdsChanged {
    std::string consumer_group;
};

/// Handler for broker-initiated notifications; may run on any thread of the transport.
using NotificationHandler = std::function<void(const ConsumerIdsChanged&)>;

/// Told that the route of `topic` changed (rmq::HasRouteChangeHandler); may run on any thread of the
/// transport and must not block.
using RouteChangeHandler = std::function<void(const std::string& topic)>;

/// What a topic's route says: the queues a consumer can read and a producer can write.
struct TopicRoute {
    std::vector<MessageQueue> read_queues;
    std::vector<MessageQueue> write_queues;
};

}  // namespace rmq
