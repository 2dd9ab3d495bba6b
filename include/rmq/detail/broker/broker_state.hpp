#pragma once

/// @file detail/broker/broker_state.hpp
/// The embedded broker: the one object rmq::InProcessBroker holds and every rmq::InProcessTransport handle
/// shares. It composes the components of this folder (store, delays, pull, long poll, offsets, membership,
/// locks, send-back, fault injection, dispatcher) and owns the lock that guards them all.
///
/// Lock discipline (unchanged from the single-class broker; keep it):
/// - ONE mutex, `mutex_`, guards the whole state: every component below and the Dispatcher's queue and flags.
///   The components have no locks of their own; they are only called with `mutex_` held. Members named
///   `*_locked` expect it held; every request member holds it for one critical section (queueing the
///   collected callbacks afterwards takes it again, briefly); config() and clock() are immutable.
/// - Checks that need no state (names, queue ownership, body size) run before the lock is taken.
/// - Callbacks owed to clients (pull completions, notifications) are collected in a BrokerTasks list while
///   locked and handed to the Dispatcher after the lock is released: user code never runs under `mutex_`.
/// - Other locks: a connection's NotificationSlot mutex is taken by its notification task on the dispatcher
///   thread, never under `mutex_`; the Clock's own mutex is taken under `mutex_` when reading the time (never
///   the reverse: ManualClock::advance calls its listener, on_clock_advance, after releasing it); start/stop
///   add and remove that listener without holding `mutex_`.
/// - A held POP request's thread waits on `pop_woken_` with `mutex_` (released while it waits); whatever
///   lets a held pop go (an arrival, a tick, an interrupt, stop) notifies it under `mutex_`.

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/assignment.hpp>
#include <rmq/clock.hpp>
#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/pop.hpp>
#include <rmq/protocol.hpp>
#include <rmq/subscription.hpp>
#include <rmq/topic.hpp>
#include <rmq/transport/broker_config.hpp>

#include <rmq/detail/broker/assignment.hpp>
#include <rmq/detail/broker/delays.hpp>
#include <rmq/detail/broker/dispatcher.hpp>
#include <rmq/detail/broker/faults.hpp>
#include <rmq/detail/broker/locks.hpp>
#include <rmq/detail/broker/long_poll.hpp>
#include <rmq/detail/broker/membership.hpp>
#include <rmq/detail/broker/offsets.hpp>
#include <rmq/detail/broker/pop.hpp>
#include <rmq/detail/broker/pop_long_poll.hpp>
#include <rmq/detail/broker/pop_order.hpp>
#include <rmq/detail/broker/pull.hpp>
#include <rmq/detail/broker/send.hpp>
#include <rmq/detail/broker/send_back.hpp>
#include <rmq/detail/broker/store.hpp>
#include <rmq/detail/broker/subscription_groups.hpp>
#include <rmq/detail/broker/timers.hpp>
#include <rmq/detail/broker/transactions.hpp>

namespace rmq::detail {

class BrokerState {
public:
    /// Throws rmq::InvalidArgument for a bad configuration.
    explicit BrokerState(BrokerConfig config);

    BrokerState(const BrokerState&) = delete;
    BrokerState& operator=(const BrokerState&) = delete;

    ~BrokerState() { stop(); }

    // ---- lifecycle (broker_state.ipp) -------------------------------------------------------------------

    /// Starts the dispatcher thread and (manual clocks) the clock listener. `self` is this state. `driven`
    /// (rmq::sim, manual clocks only): no thread; the driver runs callbacks with run_one_callback().
    void start(const std::shared_ptr<BrokerState>& self, bool driven = false);

    /// Driven mode: runs the oldest queued callback; false when none.
    bool run_one_callback() { return dispatcher_.run_one(); }

    /// The clock time of the broker's next time-driven work (delays, held pulls, expiries).
    [[nodiscard]] std::optional<std::int64_t> next_deadline() const;

    /// Remembers the consumer offsets as flushed to disk (what a restart keeps).
    void checkpoint_offsets();

    /// A crash and restart in no time: consumer offsets go back to the last checkpoint, locks and
    /// memberships are gone (clients come back with their next heartbeat), held pulls fail with
    /// SYSTEM_ERROR, held pops are answered empty. Messages survive (the commit log is flushed).
    void restart();

    /// Stops the dispatcher after it ran every queued task, then answers held pulls with SYSTEM_ERROR (held
    /// pops fail with SYSTEM_ERROR at once).
    void stop();

    [[nodiscard]] const BrokerConfig& config() const noexcept { return config_; }

    [[nodiscard]] const std::shared_ptr<Clock>& clock() const noexcept { return clock_; }

    /// Waits until every callback queued so far has run (not callable from a callback).
    void drain() { dispatcher_.drain(); }

    // ---- topics, store, send, send-back (store_requests.ipp) ----------------------------------------------

    void create_topic(std::string_view topic, std::int32_t queue_count);
    [[nodiscard]] bool has_topic(std::string_view topic) const;
    TopicRoute topic_route(const std::string& topic) const;
    SendResult send(const Message& msg, const MessageQueue& mq);
    /// SEND_BATCH_MESSAGE: every message stored in `mq`, in order, under one lock (MESSAGE_ILLEGAL for a
    /// batch the broker refuses: mixed topics, a delay level or timer, a retry topic, too large).
    SendResult send_batch(std::span<const Message> msgs, const MessageQueue& mq);
    /// CONSUMER_SEND_MSG_BACK (SendMessageProcessor.asyncConsumerSendMsgBack, 4.9.8).
    void send_back(const SendBackArgs& args);
    std::int64_t min_offset(const MessageQueue& mq) const;
    std::int64_t max_offset(const MessageQueue& mq) const;
    /// First offset whose store timestamp is >= `timestamp`; the max offset when every message is older.
    std::int64_t search_offset(const MessageQueue& mq, std::int64_t timestamp) const;
    /// Drops the messages of a queue below `offset` (what file expiry does to a real broker), so pulls below
    /// the new min offset get OFFSET_TOO_SMALL.
    void delete_messages_before(const MessageQueue& mq, std::int64_t offset);
    /// Every message stored in a queue from `from` on (introspection; SCHEDULE_TOPIC_XXXX included).
    std::vector<MessageExt> messages(std::string_view topic, std::int32_t queue_id, std::int64_t from) const;
    [[nodiscard]] std::size_t scheduled_count() const;

    // ---- transactional messages (transaction_requests.ipp) ------------------------------------------------

    /// END_TRANSACTION (EndTransactionProcessor): commits or rolls back a pending half message; Unknow leaves
    /// it pending. Throws rmq::BrokerError(SYSTEM_ERROR) for an unknown or resolved half message, a wrong
    /// producer group or table offset.
    void end_transaction(const EndTransactionArgs& args);
    /// Half messages neither committed, rolled back nor discarded.
    [[nodiscard]] std::size_t half_message_count() const;

    // ---- pull and long polling (pull_requests.ipp)
    // ---------------------------------------------------------

    /// With `post`, an answer ready now is posted there (after the lock is released) rather than dispatched.
    void pull(const PullArgs& args, PullCallback callback, const PostToCaller* post = nullptr);
    [[nodiscard]] std::size_t held_pull_count() const;

    // ---- 5.x POP (pop_requests.ipp; long polling: pop_long_poll_requests.ipp) -----------------------------

    /// POP_MESSAGE (PopMessageProcessor): up to max_msg_nums matching messages of the group's pop retry queue
    /// and the topic's queues, each with a check point and its receipt (POP_CK); for args.order, of the
    /// queues not blocked for the group, without check points (pop_order_requests.ipp). When none is there
    /// and args.poll_time_millis > 0 the calling thread is held (PopLongPollingService) until a matching
    /// message arrives or the poll time ends (then PollingNotFound, Java's POLLING_TIMEOUT); PollingFull when
    /// max_pop_polling_size pops are held already. `handle`: the connection (interrupt_pops).
    PopResult pop_message(const PopArgs& args, std::uint64_t handle = 0);
    /// The same without a waiting thread (rmq::HasAsyncPop): a pop to hold is parked with `done` and re-run
    /// when it wakes; `done` runs on the dispatcher (also every failure). A driven broker holds these too:
    /// its clock's advance and new messages wake them, no thread is needed.
    void pop_message(const PopArgs& args, PopCompletion done, std::uint64_t handle);
    /// Answers the held pops of `group` sent through connection `handle` now (empty) and holds none of its
    /// later ones until resume_pops: a stopping consumer does not wait for its poll time.
    void interrupt_pops(std::uint64_t handle, const std::string& group);
    void resume_pops(std::uint64_t handle, const std::string& group);
    /// POP requests held for long polling.
    [[nodiscard]] std::size_t held_pop_count() const;
    /// ACK_MESSAGE: removes the receipt's check point; a spent receipt changes nothing. A receipt of an
    /// orderly pop commits its offset in the queue's batch (MESSAGE_ILLEGAL when the batch does not have it).
    void ack_message(const AckArgs& args);
    /// BATCH_ACK_MESSAGE: the receipts grouped as a client sends them (BatchAckRequest::of, whose
    /// rmq::InvalidArgument it throws), then each bit acked as ack_message would.
    void batch_ack_message(const BatchAckArgs& args);
    /// CHANGE_MESSAGE_INVISIBLETIME: moves the check point's deadline (of an orderly pop: the message's
    /// visibility in its batch, its pop time kept); the new receipt. NO_MESSAGE for a spent receipt.
    std::string change_invisible_time(const ChangeInvisibleTimeArgs& args);
    /// Popped messages of `group` neither acked nor revived.
    [[nodiscard]] std::size_t pop_in_flight(const std::string& group) const;

    // ---- 5.x broker-side assignment (assignment_requests.ipp) -------------------------------------------

    /// QUERY_ASSIGNMENT (QueryAssignmentProcessor): the queues of the topic this member gets from the group's
    /// live members with the named strategy ("AVG", "AVG_BY_CIRCLE"), in the topic's mode; nullopt (Java's
    /// null set) for an unknown topic or strategy or a group without members.
    std::optional<std::vector<MessageQueueAssignment>>
    query_assignment(const QueryAssignmentArgs& args) const;
    /// SET_MESSAGE_REQUEST_MODE: NO_PERMISSION for a retry topic, TOPIC_NOT_EXIST for an unknown one.
    void set_message_request_mode(const SetMessageRequestModeArgs& args);

    // ---- offsets, membership, locks, admin (group_requests.ipp)
    // ---------------------------------------------

    /// QUERY_CONSUMER_OFFSET (4.9.8): the stored offset; else 0 when the queue's min offset is <= 0 and its
    /// first message is in memory (always, here); else nullopt (QUERY_NOT_FOUND).
    std::optional<std::int64_t> query_consumer_offset(const std::string& group, const MessageQueue& mq) const;
    /// The offset stored for (group, queue), without QUERY_CONSUMER_OFFSET's "0 when in memory" rule.
    std::optional<std::int64_t> stored_consumer_offset(const std::string& group,
                                                       const MessageQueue& mq) const;
    void update_consumer_offset(const std::string& group, const MessageQueue& mq, std::int64_t offset);

    std::uint64_t register_handle(std::shared_ptr<NotificationSlot> slot);
    /// ClientHousekeepingService.doChannelCloseEvent: the handle's clients leave their groups.
    void close_handle(std::uint64_t handle_id);
    /// HEART_BEAT (ConsumerManager.registerConsumer for every ConsumerData).
    void heartbeat(const HeartbeatData& hb, std::uint64_t handle_id);
    /// UNREGISTER_CLIENT: the client leaves the consumer group (producer groups are not tracked).
    void unregister_client(const std::string& client_id,
                           const std::string& producer_group,
                           const std::string& consumer_group);
    /// GET_CONSUMER_LIST_BY_GROUP: the client ids of a group, sorted. Throws BrokerError(SYSTEM_ERROR) when
    /// the group has no member, as the Java broker answers.
    std::vector<std::string> consumer_id_list(const std::string& group) const;
    std::vector<GroupMember> group_members(const std::string& group) const;
    std::optional<SubscriptionData> subscription(const std::string& group, const std::string& topic) const;

    /// LOCK_BATCH_MQ (RebalanceLockManager.tryLockBatch).
    std::vector<MessageQueue>
    lock_batch(const std::string& group, const std::string& client_id, const std::vector<MessageQueue>& mqs);
    /// UNLOCK_BATCH_MQ: only entries held by this client are removed.
    void unlock_batch(const std::string& group,
                      const std::string& client_id,
                      const std::vector<MessageQueue>& mqs);
    /// The client holding an unexpired lock on the queue, if any.
    std::optional<std::string> lock_owner(const std::string& group, const MessageQueue& mq) const;
    /// LOCK_BATCH_MQ requests of the group that reached the lock table.
    std::uint64_t lock_requests(const std::string& group) const;

    /// Registers a subscription group (needed only when auto_create_subscription_group is off).
    void create_subscription_group(const std::string& group);
    /// The next `times` requests of kind `request` fail with `code` (0 times clears).
    void inject_failure(BrokerRequest request, int code, int times);

private:
    void check_config() const;
    void check_own_queue(const MessageQueue& mq) const;
    /// The checks of a send that need no lock (queue, topic, body size).
    void check_send(const Message& msg, const MessageQueue& mq) const;
    void check_running_locked() const;

    /// The queue count of a send's topic, auto-creating the topic when allowed.
    std::int32_t send_queue_nums_locked(const std::string& topic);
    /// CommitLog.putMessage: stores `m` (a message with a delay level waits in SCHEDULE_TOPIC_XXXX until
    /// due, unless `apply_delay` is false) and wakes the held pulls it matches.
    /// `timer`: where a timer message waits (redirect_timer), so it is not delayed by level as well.
    std::shared_ptr<const MessageExt> store_locked(MessageExt m,
                                                   BrokerTasks& out,
                                                   bool apply_delay = true,
                                                   std::optional<DelaySchedule::Wait> timer = std::nullopt);
    /// The checks of a batch send that need no lock.
    void check_send_batch(std::span<const Message> msgs, const MessageQueue& mq) const;
    /// The write-queue check of a send under the lock (auto-creating the topic when allowed).
    void check_queue_id_locked(const MessageQueue& mq);
    /// ScheduleMessageService.messageTimeup: due delayed messages are written to their real topic.
    void deliver_due_locked(BrokerTasks& out);
    /// SendMessageProcessor for a half message: stored in the half topic, pending until resolved.
    std::shared_ptr<const MessageExt> store_half_locked(MessageExt m, BrokerTasks& out);
    /// TransactionalMessageCheckService: a due check round puts each old enough half message back with one
    /// more check (or discards it after transaction_check_max) and asks its producer group.
    void check_transactions_locked(BrokerTasks& out);
    /// The task that hands a check to a producer of `group` through a connection that registered one.
    BrokerTask check_task(std::string group, TransactionCheck check) const;

    /// PullMessageProcessor.processRequest. Returns nullopt when the request was parked for long polling
    /// (the callback then moved into the hold table).
    std::optional<Outcome<PullResult>>
    process_pull_locked(const PullArgs& a, bool allow_suspend, PullCallback& callback);
    /// Parks a pull that found nothing when its flags and the config allow; false when it is answered now.
    bool try_hold_locked(const PullArgs& a, PullCallback& callback, std::optional<SubscriptionData>& sub);
    /// PullRequestHoldService.notifyMessageArriving (and PopLongPollingService's) for a new message.
    void notify_arrival_locked(const std::string& topic,
                               std::int32_t queue_id,
                               std::int64_t tags_code,
                               BrokerTasks& out);
    /// Re-runs a held pull (without suspending again) and queues its answer.
    void answer_held_locked(HeldPull h, BrokerTasks& out);

    /// The checks of a pop under the lock (group, topic, queue id) and its parsed subscription.
    std::optional<SubscriptionData> pop_filter_locked(const PopArgs& a);
    /// One pass over the queues a pop visits (pop_queues).
    PopResult pop_locked(const PopArgs& a, const std::optional<SubscriptionData>& sub);
    [[nodiscard]] bool may_hold_pop_locked(const PopArgs& a, std::uint64_t handle, bool async = false) const;
    /// Wakes the threads of held pops when the table let one go (`woke`) and re-runs the asynchronous ones.
    void wake_pops_locked(bool woke, BrokerTasks& out);
    /// One pass of an asynchronous pop: answered into `out`, or held again until `deadline`.
    void run_async_pop_locked(const std::shared_ptr<AsyncPop>& pop,
                              std::uint64_t handle,
                              std::int64_t deadline,
                              BrokerTasks& out);
    /// Pops the matching messages of one queue into `result` (check points, receipts, the new pop offset).
    void pop_queue_locked(const PopArgs& a,
                          const MessageQueue& mq,
                          const std::optional<SubscriptionData>& sub,
                          PopResult& result);
    /// PopReviveService: messages whose invisibility expired go to the pop retry topic (or the DLQ).
    void revive_locked(BrokerTasks& out);
    /// Where a pop of `mq` starts: the group's consumer offset, else its init mode's.
    std::int64_t pop_offset_locked(const PopArgs& a, const MessageQueue& mq, const QueueLog& q) const;
    /// pop_queue_locked for an orderly pop (ConsumerOrderInfoManager.checkBlock / update).
    void pop_queue_orderly_locked(const PopArgs& a,
                                  const MessageQueue& mq,
                                  const std::optional<SubscriptionData>& sub,
                                  PopResult& result);
    /// AckMessageProcessor.ackOrderly; the error of a MESSAGE_ILLEGAL answer (an offset not in the batch).
    std::optional<std::string> ack_orderly_locked(const std::string& group,
                                                  const MessageQueue& mq,
                                                  std::int64_t offset,
                                                  std::int64_t pop_time,
                                                  BrokerTasks& out);
    /// ChangeInvisibleTimeProcessor.processChangeInvisibleTimeForOrder.
    std::string
    change_invisible_time_orderly_locked(const ChangeInvisibleTimeArgs& a, PopReceipt r, BrokerTasks& out);
    /// Wakes the held pops of orderly queues whose block ended by time.
    void wake_unblocked_orders_locked(BrokerTasks& out);

    SetMessageRequestModeArgs request_mode_locked(const std::string& topic, const std::string& group) const;
    std::optional<std::vector<MessageQueue>>
    assigned_queues_locked(const QueryAssignmentArgs& args, const SetMessageRequestModeArgs& mode) const;

    /// Time-driven work: due delayed messages, timed-out held pulls, expired channels.
    void tick_locked(BrokerTasks& out);
    [[nodiscard]] std::optional<std::int64_t> next_deadline_locked() const;
    void on_clock_advance();

    void dispatch(BrokerTasks tasks) { dispatcher_.dispatch(std::move(tasks)); }

    BrokerConfig config_;
    DelaySchedule delays_;
    std::shared_ptr<Clock> clock_;

    mutable std::mutex mutex_;
    Dispatcher dispatcher_{mutex_};
    std::uint64_t listener_id_ = 0;

    // Guarded by mutex_.
    MessageStore store_;
    SubscriptionGroups subscription_groups_;
    Membership membership_;
    ConsumerOffsets offsets_;
    QueueLocks locks_;
    HeldPulls held_;
    HalfMessages half_;
    PopCheckPoints pops_;
    PopOrderBatches pop_orders_;
    HeldPops held_pops_;
    /// Where the threads of held pops wait (with mutex_).
    std::condition_variable pop_woken_;
    /// (connection, group) whose pops are not held (interrupt_pops).
    std::set<std::pair<std::uint64_t, std::string>> pops_interrupted_;
    std::size_t pop_rotation_ = 0;
    RequestModeTable request_modes_;
    mutable FaultInjector faults_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/assignment_requests.ipp>
#    include <rmq/detail/broker/impl/broker_state.ipp>
#    include <rmq/detail/broker/impl/group_requests.ipp>
#    include <rmq/detail/broker/impl/pop_long_poll_requests.ipp>
#    include <rmq/detail/broker/impl/pop_order_requests.ipp>
#    include <rmq/detail/broker/impl/pop_requests.ipp>
#    include <rmq/detail/broker/impl/pull_requests.ipp>
#    include <rmq/detail/broker/impl/store_requests.ipp>
#    include <rmq/detail/broker/impl/transaction_requests.ipp>
#endif
