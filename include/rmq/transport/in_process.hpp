#pragma once

/// @file transport/in_process.hpp
/// rmq::InProcessBroker, an embedded stand-in for one RocketMQ broker, and rmq::InProcessTransport, the
/// client handle that models rmq::Transport against it. See docs/embedded-broker.md.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/assignment.hpp>
#include <rmq/clock.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/error.hpp>
#include <rmq/log.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/pop.hpp>
#include <rmq/protocol.hpp>
#include <rmq/transport/broker_config.hpp>

#include <rmq/detail/broker/broker_state.hpp>

namespace rmq {

class InProcessBroker;

namespace detail::sim {
class World;
}  // namespace detail::sim

/// A client connection to an rmq::InProcessBroker; models rmq::Transport. Cheap to copy: copies share the
/// connection (its notification handler and the client ids that heartbeated through it). When the last copy
/// is destroyed the connection closes and its clients leave their groups (doChannelCloseEvent). Outlives the
/// broker safely: after the broker is destroyed every call fails with SYSTEM_ERROR.
///
/// Pull completions and notifications run on the broker's dispatcher thread, never inside the call that
/// caused them and never under the broker's lock.
class InProcessTransport {
public:
    /// GET_ROUTEINFO_BY_TOPIC: every queue of the topic is readable and writable on this broker. Throws
    /// rmq::BrokerError(topic_not_exist) for an unknown topic.
    TopicRoute topic_route(const std::string& topic) { return state_->topic_route(topic); }

    /// HEART_BEAT: registers the client in every consumer group of `hb` (see docs/embedded-broker.md).
    void heartbeat(const HeartbeatData& hb) { state_->heartbeat(hb, conn_->id); }

    /// UNREGISTER_CLIENT: the client leaves `consumer_group` (when not empty); the others are notified.
    void unregister_client(const std::string& client_id,
                           const std::string& producer_group,
                           const std::string& consumer_group) {
        state_->unregister_client(client_id, producer_group, consumer_group);
    }

    /// GET_CONSUMER_LIST_BY_GROUP: sorted client ids; rmq::BrokerError(system_error) when the group has none.
    std::vector<std::string> consumer_id_list(const std::string& /*topic*/, const std::string& group) {
        return state_->consumer_id_list(group);
    }

    /// NOTIFY_CONSUMER_IDS_CHANGED for groups of the clients that heartbeated through this connection.
    void set_notification_handler(NotificationHandler handler) {
        const std::lock_guard lock(conn_->slot->mutex);
        conn_->slot->handler = std::move(handler);
    }

    /// PULL_MESSAGE; the callback runs later on the broker's dispatcher thread (after a long poll, when a
    /// matching message arrives or the suspend timeout passes).
    void pull(const PullArgs& args, PullCallback callback) { state_->pull(args, std::move(callback)); }

    /// PULL_MESSAGE whose immediate answer (messages found, nothing new without suspend, an error) is handed
    /// to `post` instead of the dispatcher thread; a held pull still completes on the dispatcher.
    void pull(const PullArgs& args, PullCallback callback, const PostToCaller& post) {
        state_->pull(args, std::move(callback), &post);
    }

    /// QUERY_CONSUMER_OFFSET: the stored offset; 0 when none is stored and the queue still starts at 0 (the
    /// Java broker's "message 0 is in memory" rule); nullopt (QUERY_NOT_FOUND) otherwise.
    std::optional<std::int64_t> query_consumer_offset(const std::string& group, const MessageQueue& mq) {
        return state_->query_consumer_offset(group, mq);
    }

    /// UPDATE_CONSUMER_OFFSET.
    void update_consumer_offset(const std::string& group, const MessageQueue& mq, std::int64_t offset) {
        state_->update_consumer_offset(group, mq, offset);
    }

    /// GET_MIN_OFFSET.
    std::int64_t min_offset(const MessageQueue& mq) { return state_->min_offset(mq); }

    /// GET_MAX_OFFSET: the offset the next message will get.
    std::int64_t max_offset(const MessageQueue& mq) { return state_->max_offset(mq); }

    /// SEARCH_OFFSET_BY_TIMESTAMP.
    std::int64_t search_offset(const MessageQueue& mq, std::int64_t timestamp_millis) {
        return state_->search_offset(mq, timestamp_millis);
    }

    /// LOCK_BATCH_MQ: the queues now locked by `client_id`.
    std::vector<MessageQueue>
    lock_batch(const std::string& group, const std::string& client_id, const std::vector<MessageQueue>& mqs) {
        return state_->lock_batch(group, client_id, mqs);
    }

    /// UNLOCK_BATCH_MQ.
    void unlock_batch(const std::string& group,
                      const std::string& client_id,
                      const std::vector<MessageQueue>& mqs) {
        state_->unlock_batch(group, client_id, mqs);
    }

    /// SEND_MESSAGE to one queue.
    SendResult send(const Message& msg, const MessageQueue& mq) { return state_->send(msg, mq); }

    /// SEND_BATCH_MESSAGE: the messages stored in order in one queue; comma-separated ids in the result.
    SendResult send_batch(std::span<const Message> msgs, const MessageQueue& mq) {
        return state_->send_batch(msgs, mq);
    }

    /// A oneway SEND_MESSAGE: the broker's answer is not returned. Errors of the call itself (a queue of
    /// another broker, a stopped broker) still throw; a refusal by the broker is logged at warn level, since
    /// a remote broker's refusal of a oneway request is never seen at all.
    void send_oneway(const Message& msg, const MessageQueue& mq) {
        try {
            (void)state_->send(msg, mq);
        } catch (const BrokerError& e) {
            log_message(LogLevel::Warn, fmt::format("oneway send to {} refused: {}", mq, e.what()));
        }
    }

    /// CONSUMER_SEND_MSG_BACK.
    void send_back(const SendBackArgs& args) { state_->send_back(args); }

    /// END_TRANSACTION (rmq::HasTransactions), oneway as in Java: a refusal by the broker (an unknown or
    /// already resolved half message, a wrong group, a stopped broker) is logged at warn level.
    void end_transaction(const EndTransactionArgs& args) {
        try {
            state_->end_transaction(args);
        } catch (const BrokerError& e) {
            log_message(LogLevel::Warn,
                        fmt::format("END_TRANSACTION of {} refused: {}", args.msg_id, e.what()));
        }
    }

    /// Where the broker's CHECK_TRANSACTION_STATE for half messages of `producer_group` go through this
    /// connection (rmq::HasTransactions; an empty handler unregisters). The handler runs on the broker's
    /// dispatcher thread and must not block.
    void set_transaction_check_handler(const std::string& producer_group, TransactionCheckHandler handler) {
        const std::lock_guard lock(conn_->slot->mutex);
        if (handler) {
            conn_->slot->transaction_checks.insert_or_assign(producer_group, std::move(handler));
        } else {
            conn_->slot->transaction_checks.erase(producer_group);
        }
    }

    /// POP_MESSAGE (rmq::HasPop): from the group's pop retry queue first, then the topic's queues. Each
    /// message gets a check point that expires invisible_time_millis later on the broker's clock, when the
    /// message goes to the pop retry topic with reconsume times + 1 (to %DLQ%<group> past
    /// BrokerConfig::retry_max_times). When nothing is there and poll_time_millis > 0 the call blocks (long
    /// polling) until a matching message arrives (answered with it) or the poll time passes on the broker's
    /// clock (PollingNotFound); PollingFull at once when BrokerConfig::max_pop_polling_size pops are held.
    PopResult pop_message(const PopArgs& args) { return state_->pop_message(args, conn_->id); }

    /// POP_MESSAGE without a waiting thread (rmq::HasAsyncPop): as above, but a pop to hold is parked at the
    /// broker with `done`, which runs once on the broker's dispatcher thread with the answer or the failure.
    /// A driven broker (rmq::sim) holds these too.
    void pop_message(const PopArgs& args, PopCompletion done) {
        state_->pop_message(args, std::move(done), conn_->id);
    }

    /// Answers this connection's held POP requests of `consumer_group` now (empty) and holds none of its
    /// later ones until resume_pops(): a stopping push consumer does not wait for its poll time.
    void interrupt_pops(const std::string& consumer_group) {
        state_->interrupt_pops(conn_->id, consumer_group);
    }

    /// Long polling again for this connection's pops of `consumer_group` (after interrupt_pops()).
    void resume_pops(const std::string& consumer_group) { state_->resume_pops(conn_->id, consumer_group); }

    /// ACK_MESSAGE: the message is done. A spent receipt (acked, expired, changed) is ignored.
    void ack_message(const AckArgs& args) { state_->ack_message(args); }

    /// ACK_MESSAGE (rmq::HasAsyncAck): done at once, `done` runs on the caller's thread.
    void ack_message(const AckArgs& args, const AckCompletion& done) {
        std::exception_ptr outcome;
        try {
            state_->ack_message(args);
        } catch (...) {
            outcome = std::current_exception();
        }
        done(outcome);
    }

    /// BATCH_ACK_MESSAGE (rmq::HasBatchAck): the messages are done, as after one ack each. Receipts of
    /// several brokers or a malformed one: rmq::InvalidArgument, nothing acked.
    void batch_ack_message(const BatchAckArgs& args) { state_->batch_ack_message(args); }

    /// BATCH_ACK_MESSAGE without waiting: done at once, `done` runs on the caller's thread (what the
    /// synchronous form throws before anything is acked is thrown here too, as RemotingTransport does).
    void batch_ack_message(const BatchAckArgs& args, const AckCompletion& done) {
        (void)BatchAckRequest::of(args);
        std::exception_ptr outcome;
        try {
            state_->batch_ack_message(args);
        } catch (...) {
            outcome = std::current_exception();
        }
        done(outcome);
    }

    /// CHANGE_MESSAGE_INVISIBLETIME: the new receipt; rmq::BrokerError(no_message) for a spent one.
    std::string change_invisible_time(const ChangeInvisibleTimeArgs& args) {
        return state_->change_invisible_time(args);
    }

    /// QUERY_ASSIGNMENT (rmq::HasAssignment), answered as a 5.3.3 broker does: the group's live members split
    /// the topic's queues with the named strategy ("AVG" or "AVG_BY_CIRCLE"; another name: nullopt), in the
    /// mode set for (topic, group) or BrokerConfig::default_message_request_mode.
    std::optional<std::vector<MessageQueueAssignment>> query_assignment(const QueryAssignmentArgs& args) {
        return state_->query_assignment(args);
    }

    /// SET_MESSAGE_REQUEST_MODE: the mode QUERY_ASSIGNMENT answers for (topic, group) from now on.
    void set_message_request_mode(const SetMessageRequestModeArgs& args) {
        state_->set_message_request_mode(args);
    }

    /// The broker's clock.
    [[nodiscard]] std::shared_ptr<Clock> clock() const { return state_->clock(); }

    /// Optional capability (GET_CONSUMER_CONNECTION_LIST): the group's members with the ConsumerData each
    /// last sent; the consumer compares subscriptions with it to report an inconsistent group (members
    /// subscribed differently). Not part of rmq::Transport.
    [[nodiscard]] std::vector<GroupMember> group_members(const std::string& group) const {
        return state_->group_members(group);
    }

private:
    friend class InProcessBroker;
    friend class detail::sim::World;

    /// One connection: closing it (last copy gone) removes its clients from their groups.
    struct Connection {
        std::shared_ptr<detail::BrokerState> state;
        std::shared_ptr<detail::NotificationSlot> slot;
        std::uint64_t id = 0;

        Connection(std::shared_ptr<detail::BrokerState> s, std::shared_ptr<detail::NotificationSlot> sl)
            : state(std::move(s))
            , slot(std::move(sl)) {
            id = state->register_handle(slot);
        }

        Connection(const Connection&) = delete;
        Connection& operator=(const Connection&) = delete;

        ~Connection() { state->close_handle(id); }
    };

    explicit InProcessTransport(std::shared_ptr<detail::BrokerState> state)
        : state_(state)
        , conn_(
              std::make_shared<Connection>(std::move(state), std::make_shared<detail::NotificationSlot>())) {}

    std::shared_ptr<detail::BrokerState> state_;
    std::shared_ptr<Connection> conn_;
};

/// An embedded RocketMQ broker: topics with append-only queues, pulls with long polling, consumer offsets,
/// group membership, orderly locks, send-back with retry/DLQ topics and delay levels. Thread-safe; never
/// calls user code while holding its lock. Its destructor stops the dispatcher thread after running every
/// queued callback and answers held pulls with SYSTEM_ERROR. See docs/embedded-broker.md.
class InProcessBroker {
public:
    /// Throws rmq::InvalidArgument for a bad configuration (e.g. an unparsable message_delay_level).
    explicit InProcessBroker(BrokerConfig config = {})
        : state_(std::make_shared<detail::BrokerState>(std::move(config))) {
        state_->start(state_);
    }

    InProcessBroker(const InProcessBroker&) = delete;
    InProcessBroker& operator=(const InProcessBroker&) = delete;
    InProcessBroker(InProcessBroker&&) = delete;
    InProcessBroker& operator=(InProcessBroker&&) = delete;

    ~InProcessBroker() { state_->stop(); }

    /// A new client connection.
    [[nodiscard]] InProcessTransport connect() { return InProcessTransport(state_); }

    [[nodiscard]] const BrokerConfig& config() const noexcept { return state_->config(); }

    /// The broker's clock.
    [[nodiscard]] std::shared_ptr<Clock> clock() const { return state_->clock(); }

    /// Creates a topic with `queue_count` read/write queues (or grows an existing one). Throws
    /// rmq::InvalidArgument for a bad name or count.
    void create_topic(std::string_view topic, std::int32_t queue_count) {
        state_->create_topic(topic, queue_count);
    }

    [[nodiscard]] bool has_topic(std::string_view topic) const { return state_->has_topic(topic); }

    /// Registers a subscription group (only needed with auto_create_subscription_group = false).
    void create_subscription_group(const std::string& group) { state_->create_subscription_group(group); }

    /// The queue of this broker: `MessageQueue{topic, broker_name, queue_id}`.
    [[nodiscard]] MessageQueue queue(std::string topic, std::int32_t queue_id) const {
        return MessageQueue{std::move(topic), state_->config().broker_name, queue_id};
    }

    [[nodiscard]] std::int64_t min_offset(const MessageQueue& mq) const { return state_->min_offset(mq); }

    [[nodiscard]] std::int64_t max_offset(const MessageQueue& mq) const { return state_->max_offset(mq); }

    [[nodiscard]] std::int64_t search_offset(const MessageQueue& mq, std::int64_t timestamp_millis) const {
        return state_->search_offset(mq, timestamp_millis);
    }

    /// The offset stored for the group (nullopt if none; no QUERY_CONSUMER_OFFSET "0" rule).
    [[nodiscard]] std::optional<std::int64_t> consumer_offset(const std::string& group,
                                                              const MessageQueue& mq) const {
        return state_->stored_consumer_offset(group, mq);
    }

    /// Every message stored in a queue from offset `from` on (SCHEDULE_TOPIC_XXXX queue level-1 holds
    /// messages waiting for their delay).
    [[nodiscard]] std::vector<MessageExt>
    messages(std::string_view topic, std::int32_t queue_id, std::int64_t from = 0) const {
        return state_->messages(topic, queue_id, from);
    }

    /// Drops a queue's messages below `offset`, as file expiry would; the queue's min offset moves there.
    void delete_messages_before(const MessageQueue& mq, std::int64_t offset) {
        state_->delete_messages_before(mq, offset);
    }

    /// The members of a consumer group with the ConsumerData each last sent (for tests and for reports on
    /// inconsistent subscriptions).
    [[nodiscard]] std::vector<GroupMember> group_members(const std::string& group) const {
        return state_->group_members(group);
    }

    /// The one SubscriptionData the broker keeps for (group, topic) and filters pulls with.
    [[nodiscard]] std::optional<SubscriptionData> subscription(const std::string& group,
                                                               const std::string& topic) const {
        return state_->subscription(group, topic);
    }

    /// The client holding an unexpired orderly lock on the queue.
    [[nodiscard]] std::optional<std::string> lock_owner(const std::string& group,
                                                        const MessageQueue& mq) const {
        return state_->lock_owner(group, mq);
    }

    /// How many LOCK_BATCH_MQ requests (first locks and renewals) the group has sent.
    [[nodiscard]] std::uint64_t lock_requests(const std::string& group) const {
        return state_->lock_requests(group);
    }

    /// Half messages (transactional sends) not yet committed, rolled back or discarded.
    [[nodiscard]] std::size_t half_message_count() const { return state_->half_message_count(); }

    /// Delayed messages not yet delivered.
    [[nodiscard]] std::size_t scheduled_count() const { return state_->scheduled_count(); }

    /// Messages popped by `group` and neither acked nor back for redelivery yet (POP check points).
    [[nodiscard]] std::size_t pop_in_flight(const std::string& group) const {
        return state_->pop_in_flight(group);
    }

    /// Pulls parked for long polling.
    [[nodiscard]] std::size_t held_pull_count() const { return state_->held_pull_count(); }

    /// POP requests held for long polling (synchronous ones block their threads in pop_message).
    [[nodiscard]] std::size_t held_pop_count() const { return state_->held_pop_count(); }

    /// Fault injection: the next `times` requests of kind `request` fail with response code `code` (thrown as
    /// rmq::BrokerError, or a failed Outcome for pulls) before they change anything. `times` 0 clears.
    void inject_failure(BrokerRequest request, int code, int times = 1) {
        state_->inject_failure(request, code, times);
    }

    /// Waits until every pull completion and notification queued so far has run. Must not be called from
    /// such a callback (throws rmq::IllegalState).
    void drain() { state_->drain(); }

private:
    std::shared_ptr<detail::BrokerState> state_;
};

static_assert(Transport<InProcessTransport>);
static_assert(HasSendBatch<InProcessTransport>);
static_assert(HasSendOneway<InProcessTransport>);
static_assert(HasTransactions<InProcessTransport>);
static_assert(HasPop<InProcessTransport>);
static_assert(HasAsyncPop<InProcessTransport>);
static_assert(HasAssignment<InProcessTransport>);

}  // namespace rmq
