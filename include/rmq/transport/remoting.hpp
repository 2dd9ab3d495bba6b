#pragma once

/// @file transport/remoting.hpp
/// rmq::RemotingTransport: rmq::Transport over Apache RocketMQ's own TCP "remoting" protocol, to real
/// NameServers and Brokers (4.9.x and 5.x). See docs/transport/remoting.md.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <rmq/admin.hpp>
#include <rmq/assignment.hpp>
#include <rmq/clock.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/pop.hpp>
#include <rmq/protocol.hpp>
#include <rmq/transport/remoting_config.hpp>

#include <rmq/detail/remoting_transport/state.hpp>

namespace rmq {

/// rmq::Transport over RocketMQ's TCP remoting protocol: NameServer route lookups (refreshed every
/// poll_name_server_interval), heartbeats to every known broker, long-polling pulls, offsets, orderly locks,
/// SEND_MESSAGE_V2 with zlib compression, send-back. One io thread per transport (and its copies).
///
/// @code
/// rmq::RemotingTransport transport{rmq::RemotingConfig{.namesrv_addr = "127.0.0.1:9876"}};
/// rmq::PushConsumer<rmq::RemotingTransport> consumer{transport, rmq::ConsumerConfig{.consumer_group = "g"}};
/// @endcode
///
/// Copies share the connections and caches; the last copy closes them. Thread-safe. Blocking members must not
/// be called from a pull callback or notification handler (they run on the io thread): rmq::IllegalState.
class RemotingTransport {
public:
    /// Throws rmq::InvalidArgument for an empty or malformed namesrv_addr or non-positive timeouts.
    explicit RemotingTransport(RemotingConfig config)
        : state_(std::make_shared<detail::RemotingTransportState>(std::move(config))) {}

    /// GET_ROUTEINFO_BY_TOPIC (cached; refreshed in the background). rmq::BrokerError(topic_not_exist) for an
    /// unknown topic.
    TopicRoute topic_route(const std::string& topic) { return state_->topic_route(topic); }

    /// HEART_BEAT to every known broker (consumers: masters and slaves; producers: masters), after looking up
    /// the routes of the subscribed topics. Remembered and re-sent after every reconnect and periodically.
    /// Throws only when every broker failed (a broker that is down is logged, as Java does).
    void heartbeat(const HeartbeatData& hb) { state_->heartbeat(hb); }

    /// UNREGISTER_CLIENT to every known broker (empty group names are left out).
    void unregister_client(const std::string& client_id,
                           const std::string& producer_group,
                           const std::string& consumer_group) {
        state_->unregister_client(client_id, producer_group, consumer_group);
    }

    /// GET_CONSUMER_LIST_BY_GROUP on a broker of `topic`.
    std::vector<std::string> consumer_id_list(const std::string& topic, const std::string& group) {
        return state_->consumer_id_list(topic, group);
    }

    /// NOTIFY_CONSUMER_IDS_CHANGED handler (runs on the io thread).
    void set_notification_handler(NotificationHandler handler) {
        state_->set_notification_handler(std::move(handler));
    }

    /// The admin callbacks of a running consumer of `group` (rmq::HasAdminHandler):
    /// GET_CONSUMER_RUNNING_INFO, RESET_CONSUMER_CLIENT_OFFSET, GET_CONSUMER_STATUS_FROM_CLIENT and
    /// CONSUME_MESSAGE_DIRECTLY are answered through them (on the io thread). An empty handler unregisters.
    /// See docs/admin.md.
    void set_admin_handler(const std::string& group, AdminHandler handler) {
        state_->set_admin_handler(group, std::move(handler));
    }

    /// Registers a handler told when a cached route changed (rmq::HasRouteChangeHandler; an empty handler
    /// unregisters `key`). Routes are re-read every poll_name_server_interval and, for a minute after a
    /// broker connection is lost or comes back, every second. Handlers run on the io thread or a caller's.
    void set_route_change_handler(const std::string& key, RouteChangeHandler handler) {
        state_->set_route_change_handler(key, std::move(handler));
    }

    /// PULL_MESSAGE (asynchronous; the callback runs on the io thread). Goes to the broker id the last answer
    /// suggested for the queue; the commit bit is cleared when that is a slave.
    void pull(const PullArgs& args, PullCallback callback) { state_->pull(args, std::move(callback), {}); }

    /// The same, with the answer decoded and the callback run through `post`, on the caller's own loop
    /// (rmq::HasPullPostingToCaller): the messages are then allocated on the thread that will free them, not
    /// on the io thread (glibc's malloc makes two threads that allocate and free each other's memory take
    /// each other's arena locks: half of a consumer's futex calls before this), and the io thread only reads.
    void pull(const PullArgs& args, PullCallback callback, PostToCaller post) {
        state_->pull(args, std::move(callback), std::move(post));
    }

    /// QUERY_CONSUMER_OFFSET on the master; nullopt on QUERY_NOT_FOUND.
    std::optional<std::int64_t> query_consumer_offset(const std::string& group, const MessageQueue& mq) {
        return state_->query_consumer_offset(group, mq);
    }

    /// UPDATE_CONSUMER_OFFSET on the master (two-way, so failures surface).
    void update_consumer_offset(const std::string& group, const MessageQueue& mq, std::int64_t offset) {
        state_->update_consumer_offset(group, mq, offset);
    }

    /// GET_MIN_OFFSET.
    std::int64_t min_offset(const MessageQueue& mq) { return state_->min_offset(mq); }

    /// GET_MAX_OFFSET.
    std::int64_t max_offset(const MessageQueue& mq) { return state_->max_offset(mq); }

    /// SEARCH_OFFSET_BY_TIMESTAMP.
    std::int64_t search_offset(const MessageQueue& mq, std::int64_t timestamp_millis) {
        return state_->search_offset(mq, timestamp_millis);
    }

    /// LOCK_BATCH_MQ, one request per broker master; the union of what they locked.
    std::vector<MessageQueue>
    lock_batch(const std::string& group, const std::string& client_id, const std::vector<MessageQueue>& mqs) {
        return state_->lock_batch(group, client_id, mqs);
    }

    /// UNLOCK_BATCH_MQ, one request per broker master.
    void unlock_batch(const std::string& group,
                      const std::string& client_id,
                      const std::vector<MessageQueue>& mqs) {
        state_->unlock_batch(group, client_id, mqs);
    }

    /// SEND_MESSAGE_V2 to the queue's master: UNIQ_KEY added when absent, zlib above
    /// compress_msg_body_over_howmuch, SYSTEM_BUSY retried. rmq::BrokerError for other error codes.
    SendResult send(const Message& msg, const MessageQueue& mq) { return state_->send(msg, mq); }

    /// SEND_MESSAGE_V2 without a thread waiting (rmq::HasAsyncSend): `done` gets the result, or the exception
    /// send() would throw (SYSTEM_BUSY is not retried), on the io thread; keep it short. Throws before
    /// sending as send() does.
    void send_async(const Message& msg, const MessageQueue& mq, SendCompletion done) {
        state_->send_async(msg, mq, std::move(done));
    }

    /// SEND_MESSAGE_V2 as a oneway request: nothing waits for the broker's answer. A timer message to a 4.x
    /// broker throws rmq::UnsupportedByBroker (as send does).
    void send_oneway(const Message& msg, const MessageQueue& mq) { state_->send_oneway(msg, mq); }

    /// SEND_BATCH_MESSAGE (Java's MessageDecoder.encodeMessages body, never compressed) to the queue's
    /// master.
    SendResult send_batch(std::span<const Message> msgs, const MessageQueue& mq) {
        return state_->send_batch(msgs, mq);
    }

    /// SEND_BATCH_MESSAGE without waiting (rmq::HasAsyncSendBatch): encoded before it returns; `done` gets
    /// what send_batch() would return or throw, on the io thread.
    void send_batch_async(std::span<const Message> msgs, const MessageQueue& mq, SendCompletion done) {
        state_->send_batch_async(msgs, mq, std::move(done));
    }

    /// END_TRANSACTION (rmq::HasTransactions), oneway: to the broker that asked when answering a check-back,
    /// else to the master of the half message's broker.
    void end_transaction(const EndTransactionArgs& args) { state_->end_transaction(args); }

    /// Where brokers' CHECK_TRANSACTION_STATE for half messages of `producer_group` go (rmq::HasTransactions;
    /// an empty handler unregisters). The handler runs on the io thread and must not block.
    void set_transaction_check_handler(const std::string& producer_group, TransactionCheckHandler handler) {
        state_->set_transaction_check_handler(producer_group, std::move(handler));
    }

    /// CONSUMER_SEND_MSG_BACK to the master of the message's broker.
    void send_back(const SendBackArgs& args) { state_->send_back(args); }

    /// POP_MESSAGE (rmq::HasPop, 5.x brokers) to the master of `args.broker_name`, with a JSON header. Waits
    /// up to poll_time_millis + mq_client_api_timeout. A 4.x broker: rmq::PopUnsupported.
    PopResult pop_message(const PopArgs& args) { return state_->pop_message(args); }

    /// POP_MESSAGE without waiting (rmq::HasAsyncPop): `done` runs on the io thread with the answer or the
    /// failure (rmq::PopUnsupported on a 4.x broker); on the caller's thread before return when nothing was
    /// sent (no route: the failure; the group interrupted by interrupt_pops(): nothing found).
    void pop_message(const PopArgs& args, PopCompletion done) { state_->pop_message(args, std::move(done)); }

    /// Ends the waits of `consumer_group`'s POP requests now (nothing found) and answers its later ones so
    /// at once until resume_pops() (rmq::HasPopInterrupt): a stopping push consumer does not wait out the
    /// broker's poll time. The broker still holds those requests; what it answers them later is dropped and
    /// comes back after its invisible time.
    void interrupt_pops(const std::string& consumer_group) { state_->interrupt_pops(consumer_group); }

    /// POP requests of `consumer_group` are sent and waited for again (after interrupt_pops()).
    void resume_pops(const std::string& consumer_group) { state_->resume_pops(consumer_group); }

    /// QUERY_ASSIGNMENT (rmq::HasAssignment, 5.x brokers) to one broker of the topic's route, chosen at
    /// random as Java does: the queues the broker gives this member, nullopt when it has no answer. A 4.x
    /// broker: rmq::AssignmentUnsupported.
    std::optional<std::vector<MessageQueueAssignment>> query_assignment(const QueryAssignmentArgs& args) {
        return state_->query_assignment(args);
    }

    /// SET_MESSAGE_REQUEST_MODE to the master of every broker of the topic's route (mqadmin setConsumeMode).
    /// A 4.x broker: rmq::AssignmentUnsupported.
    void set_message_request_mode(const SetMessageRequestModeArgs& args) {
        state_->set_message_request_mode(args);
    }

    /// ACK_MESSAGE to the master of the broker the receipt names.
    void ack_message(const AckArgs& args) { state_->ack_message(args); }

    /// ACK_MESSAGE without waiting (rmq::HasAsyncAck): `done` runs on the io thread with the outcome.
    void ack_message(const AckArgs& args, AckCompletion done) { state_->ack_message(args, std::move(done)); }

    /// BATCH_ACK_MESSAGE (rmq::HasBatchAck) to the master of the broker the receipts name: one request for
    /// them all. rmq::InvalidArgument before sending for receipts of several brokers or a malformed one.
    void batch_ack_message(const BatchAckArgs& args) { state_->batch_ack_message(args); }

    /// BATCH_ACK_MESSAGE without waiting: `done` runs on the io thread with the outcome.
    void batch_ack_message(const BatchAckArgs& args, AckCompletion done) {
        state_->batch_ack_message(args, std::move(done));
    }

    /// CHANGE_MESSAGE_INVISIBLETIME to the master of the broker the receipt names; the new receipt.
    std::string change_invisible_time(const ChangeInvisibleTimeArgs& args) {
        return state_->change_invisible_time(args);
    }

    /// rmq::system_clock(): a real cluster lives by wall time.
    [[nodiscard]] std::shared_ptr<Clock> clock() const { return system_clock(); }

    /// Forgets a cached route (the next topic_route asks the NameServer).
    void invalidate_route(const std::string& topic) { state_->invalidate_route(topic); }

    /// The master address of a broker group from the known routes; rmq::Error if unknown.
    [[nodiscard]] std::string master_address(const std::string& broker_name) const {
        return state_->master_address(broker_name);
    }

    [[nodiscard]] const RemotingConfig& config() const noexcept { return state_->config(); }

private:
    std::shared_ptr<detail::RemotingTransportState> state_;
};

static_assert(Transport<RemotingTransport>);
static_assert(HasSendBatch<RemotingTransport>);
static_assert(HasSendOneway<RemotingTransport>);
static_assert(HasAdminHandler<RemotingTransport>);
static_assert(HasRouteChangeHandler<RemotingTransport>);
static_assert(HasTransactions<RemotingTransport>);
static_assert(HasPop<RemotingTransport>);
static_assert(HasPopInterrupt<RemotingTransport>);
static_assert(HasAsyncPop<RemotingTransport>);
static_assert(HasAssignment<RemotingTransport>);

}  // namespace rmq
