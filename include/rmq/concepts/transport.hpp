#pragma once

/// @file concepts/transport.hpp
/// The Transport concept: every conversation a client has with brokers, named after RocketMQ's request codes.

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/admin.hpp>
#include <rmq/assignment.hpp>
#include <rmq/clock.hpp>
#include <rmq/pop.hpp>
#include <rmq/protocol.hpp>

namespace rmq {

/// Route look-up (GET_ROUTEINFO_BY_TOPIC): `topic_route(topic) -> TopicRoute`, throws rmq::BrokerError
/// (response_code::topic_not_exist) for an unknown topic.
template <class T>
concept HasTopicRoute = requires(T& t, const std::string& topic) {
    { t.topic_route(topic) } -> std::same_as<TopicRoute>;
};

/// Group membership: `heartbeat(HeartbeatData)`, `unregister_client(client_id, producer_group,
/// consumer_group)`, `consumer_id_list(topic, group) -> std::vector<std::string>` and
/// `set_notification_handler(NotificationHandler)` for NOTIFY_CONSUMER_IDS_CHANGED.
template <class T>
concept HasMembership =
    requires(T& t, const HeartbeatData& hb, const std::string& s, NotificationHandler handler) {
        t.heartbeat(hb);
        t.unregister_client(s, s, s);
        { t.consumer_id_list(s, s) } -> std::same_as<std::vector<std::string>>;
        t.set_notification_handler(std::move(handler));
    };

/// Asynchronous pull (PULL_MESSAGE): `pull(PullArgs, PullCallback)`; the callback may run on any thread.
template <class T>
concept HasPull = requires(T& t, const PullArgs& args, PullCallback cb) { t.pull(args, std::move(cb)); };

/// Optional: `pull(PullArgs, PullCallback, PostToCaller post)`. A pull whose answer is at hand when it is
/// made completes through `post`, on the caller's own loop, instead of on a transport thread: a consumer then
/// pays no thread hand-over for a pull that finds messages at once (the embedded broker's common case). A
/// transport may complete any answer through `post` (rmq::RemotingTransport does, and decodes the messages
/// in the posted task, so they are allocated on the loop that frees them); answers it does not post arrive
/// on any thread. Consumers use it when the transport has it.
template <class T>
concept HasPullPostingToCaller = requires(T& t, const PullArgs& args, PullCallback cb, PostToCaller post) {
    t.pull(args, std::move(cb), std::move(post));
};

/// Optional: `group_members(group)`, every member of a consumer group with its client id and
/// `consumer_data` (the subscriptions of its last heartbeat). A consumer that has it compares the
/// subscriptions of its group's members at each rebalance and reports an inconsistency (members of one group
/// that subscribe differently skip messages silently); without it only the broker's SUBSCRIPTION_NOT_EXIST
/// answers tell.
template <class T>
concept HasGroupMembers = requires(T& t, const std::string& group) { t.group_members(group); };

/// Optional: `set_admin_handler(group, rmq::AdminHandler)`, the callbacks through which a broker's admin
/// requests (mqadmin consumerStatus, resetOffsetByTime, consumeMessage; see rmq/admin.hpp) reach a running
/// consumer of `group`; an empty handler unregisters. Consumers register one when the transport has it.
template <class T>
concept HasAdminHandler =
    requires(T& t, const std::string& group, AdminHandler h) { t.set_admin_handler(group, std::move(h)); };

/// Optional: `set_route_change_handler(key, rmq::RouteChangeHandler)`, told when a topic's cached route
/// changed (a broker went away or came back); `key` names the registration, an empty handler unregisters it.
/// A consumer registers one when the transport has it and rebalances soon after a change of a subscribed
/// topic, so the members of a group, which all see the change, converge on one allocation within seconds
/// instead of at their next periodic rebalance. Transports that watch their connections (rmq::
/// RemotingTransport re-reads the routes when a broker connection is lost or comes back, and every
/// route_check_interval_millis while a consumer is registered) make that prompt.
template <class T>
concept HasRouteChangeHandler = requires(T& t, const std::string& key, RouteChangeHandler h) {
    t.set_route_change_handler(key, std::move(h));
};

/// Offsets: `query_consumer_offset(group, mq) -> std::optional<std::int64_t>` (nullopt = none stored),
/// `update_consumer_offset(group, mq, offset)`, `min_offset(mq)`, `max_offset(mq)`,
/// `search_offset(mq, timestamp_millis)`.
template <class T>
concept HasOffsets = requires(T& t, const std::string& group, const MessageQueue& mq, std::int64_t v) {
    { t.query_consumer_offset(group, mq) } -> std::same_as<std::optional<std::int64_t>>;
    t.update_consumer_offset(group, mq, v);
    { t.min_offset(mq) } -> std::same_as<std::int64_t>;
    { t.max_offset(mq) } -> std::same_as<std::int64_t>;
    { t.search_offset(mq, v) } -> std::same_as<std::int64_t>;
};

/// Orderly queue locks (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ): `lock_batch(group, client_id, mqs)` returns the
/// queues now locked by this client; `unlock_batch(group, client_id, mqs)`.
template <class T>
concept HasQueueLocks = requires(T& t, const std::string& s, const std::vector<MessageQueue>& mqs) {
    { t.lock_batch(s, s, mqs) } -> std::same_as<std::vector<MessageQueue>>;
    t.unlock_batch(s, s, mqs);
};

/// Sending (SEND_MESSAGE and CONSUMER_SEND_MSG_BACK): `send(Message, MessageQueue) -> SendResult` and
/// `send_back(SendBackArgs)`; both throw rmq::Error on failure.
template <class T>
concept HasSend = requires(T& t, const Message& msg, const MessageQueue& mq, const SendBackArgs& back) {
    { t.send(msg, mq) } -> std::same_as<SendResult>;
    t.send_back(back);
};

/// Optional: `send_batch(std::span<const Message>, MessageQueue) -> SendResult` (SEND_BATCH_MESSAGE): the
/// messages, all of the queue's topic, stored together in that queue; msg_id and offset_msg_id of the result
/// are comma-separated, one id per message. rmq::Producer's batch sends need it.
template <class T>
concept HasSendBatch = requires(T& t, std::span<const Message> msgs, const MessageQueue& mq) {
    { t.send_batch(msgs, mq) } -> std::same_as<SendResult>;
};

/// Optional: `send_oneway(Message, MessageQueue)`, a send whose answer is never awaited (Java's oneway
/// request). rmq::Producer::send_oneway uses it when present, else a send whose result it drops; with the
/// topic's route cached it calls it on the caller's thread, so it must not wait for the broker.
template <class T>
concept HasSendOneway =
    requires(T& t, const Message& msg, const MessageQueue& mq) { t.send_oneway(msg, mq); };

/// Optional: `send_async(Message, MessageQueue, SendCompletion)`, a send no thread waits for (Java's
/// CommunicationMode.ASYNC). It returns once the request is on its way, throwing what send() throws before
/// sending (no route, a timer the broker lacks); `done` then runs once, on the transport's own thread (keep
/// it short). rmq::Producer's send_async(msg), send_async(msg, queue) and send_async(msg, selector, arg) use
/// it when present, so that many sends are in flight on few threads; else they run send() on its own threads.
template <class T>
concept HasAsyncSend = requires(T& t, const Message& msg, const MessageQueue& mq, SendCompletion done) {
    t.send_async(msg, mq, std::move(done));
};

/// Optional: `send_batch_async(std::span<const Message>, MessageQueue, SendCompletion)`, send_batch without
/// waiting (SEND_BATCH_MESSAGE in CommunicationMode.ASYNC), as HasAsyncSend is to send: the messages are
/// encoded before it returns (the span need not outlive the call), `done` runs once on the transport's
/// thread. rmq::Producer::send_async(batch) uses it when present, else send_batch on its own threads.
template <class T>
concept HasAsyncSendBatch =
    requires(T& t, std::span<const Message> msgs, const MessageQueue& mq, SendCompletion done) {
        t.send_batch_async(msgs, mq, std::move(done));
    };

/// Optional: transactional messages. `end_transaction(EndTransactionArgs)` (END_TRANSACTION, oneway: a
/// broker's refusal is logged, not thrown) and `set_transaction_check_handler(producer_group,
/// TransactionCheckHandler)`, where a broker's CHECK_TRANSACTION_STATE for a half message of that group goes
/// (an empty handler unregisters). rmq::TransactionProducer needs it.
template <class T>
concept HasTransactions =
    requires(T& t, const EndTransactionArgs& args, const std::string& group, TransactionCheckHandler h) {
        t.end_transaction(args);
        t.set_transaction_check_handler(group, std::move(h));
    };

/// Optional: 5.x POP consumption (rmq/pop.hpp). `pop_message(PopArgs) -> PopResult` (POP_MESSAGE: the
/// messages carry their receipt in POP_CK), `ack_message(AckArgs)` (ACK_MESSAGE) and
/// `change_invisible_time(ChangeInvisibleTimeArgs) -> std::string` (CHANGE_MESSAGE_INVISIBLETIME: the new
/// receipt). Synchronous; a broker without POP (4.x) makes them throw rmq::PopUnsupported.
/// rmq::SimpleConsumer needs it.
template <class T>
concept HasPop =
    requires(T& t, const PopArgs& pop, const AckArgs& ack, const ChangeInvisibleTimeArgs& change) {
        { t.pop_message(pop) } -> std::same_as<PopResult>;
        t.ack_message(ack);
        { t.change_invisible_time(change) } -> std::same_as<std::string>;
    };

/// Optional: `ack_message(AckArgs, AckCompletion)`, an ACK_MESSAGE no thread waits for (Java's ackAsync). It
/// throws what ack_message throws before sending (no route); `done` then runs once, on the transport's own
/// thread (keep it short). The push consumer's POP mode acks with it when present, so that its consume
/// threads do not wait a round trip per message.
template <class T>
concept HasAsyncAck = HasPop<T> && requires(T& t, const AckArgs& ack, AckCompletion done) {
    t.ack_message(ack, std::move(done));
};

/// Optional, with HasPop: `pop_message(PopArgs, PopCompletion)`, a POP_MESSAGE no thread waits for, also
/// while the broker holds it for long polling. It returns at once; `done` runs once with the answer or the
/// failure, on the transport's own thread (keep it short), or on the caller's before pop_message returns
/// when nothing could be sent (no route). The push consumer's POP
/// mode pops with it when present: its pop loops run on its event loop instead of a thread per POP queue
/// blocked on the broker (and so under rmq::sim's driver).
template <class T>
concept HasAsyncPop = HasPop<T> && requires(T& t, const PopArgs& pop, PopCompletion done) {
    t.pop_message(pop, std::move(done));
};

/// Optional, with HasPop: `batch_ack_message(BatchAckArgs)` and `batch_ack_message(BatchAckArgs,
/// AckCompletion)`, one BATCH_ACK_MESSAGE (5.x) for many receipts of one broker, synchronous and without
/// waiting (`done` as for HasAsyncAck). Both throw rmq::InvalidArgument before sending for receipts of
/// different brokers or a malformed receipt. rmq::SimpleConsumer::ack(span) uses it when present.
template <class T>
concept HasBatchAck = HasPop<T> && requires(T& t, const BatchAckArgs& batch, AckCompletion done) {
    t.batch_ack_message(batch);
    t.batch_ack_message(batch, std::move(done));
};

/// Optional, with HasPop: `interrupt_pops(group)` answers the connection's POP requests of the group that
/// the broker holds for long polling now and holds none until `resume_pops(group)`. A stopping push consumer
/// in POP mode calls them so that it does not wait for the poll time (rmq::InProcessTransport has them).
template <class T>
concept HasPopInterrupt = requires(T& t, const std::string& group) {
    t.interrupt_pops(group);
    t.resume_pops(group);
};

/// Optional: 5.x broker-side assignment (rmq/assignment.hpp). `query_assignment(QueryAssignmentArgs) ->
/// std::optional<std::vector<MessageQueueAssignment>>` (QUERY_ASSIGNMENT to one broker of the topic: the
/// queues it gives this member, each with its mode; nullopt when the broker has no answer: unknown strategy
/// or topic, no member) and `set_message_request_mode(SetMessageRequestModeArgs)` (SET_MESSAGE_REQUEST_MODE).
/// Synchronous; a 4.x broker makes them throw rmq::AssignmentUnsupported. rmq::AllocateByBroker needs it.
template <class T>
concept HasAssignment =
    requires(T& t, const QueryAssignmentArgs& query, const SetMessageRequestModeArgs& mode) {
        { t.query_assignment(query) } -> std::same_as<std::optional<std::vector<MessageQueueAssignment>>>;
        t.set_message_request_mode(mode);
    };

/// The clock the transport's broker lives by: `clock() -> std::shared_ptr<Clock>`.
template <class T>
concept HasClock = requires(const T& t) {
    { t.clock() } -> std::convertible_to<std::shared_ptr<Clock>>;
};

/// A connection to RocketMQ brokers as a client needs it. Thread-safe: every member may be called from any
/// thread. Synchronous members throw rmq::Error (rmq::BrokerError carries the response code).
///
/// Valid: rmq::InProcessTransport, rmq::RemotingTransport. Invalid: a type without `pull` (the diagnostic
/// names HasPull).
template <class T>
concept Transport = std::move_constructible<T> && HasTopicRoute<T> && HasMembership<T> && HasPull<T> &&
                    HasOffsets<T> && HasQueueLocks<T> && HasSend<T> && HasClock<T>;

}  // namespace rmq
