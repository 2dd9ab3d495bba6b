#pragma once

/// @file transaction_producer.hpp
/// rmq::TransactionProducer<Tr, Listener>: Java's TransactionMQProducer. A half message, the local
/// transaction, END_TRANSACTION; and the answers to the broker's check-backs. docs/producer.md#transactions.

#include <algorithm>
#include <concepts>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include <rmq/concepts/transport.hpp>
#include <rmq/error.hpp>
#include <rmq/log.hpp>
#include <rmq/message.hpp>
#include <rmq/producer.hpp>
#include <rmq/producer_config.hpp>
#include <rmq/protocol.hpp>
#include <rmq/unique_id.hpp>

#include <rmq/detail/producer/async_sender.hpp>
#include <rmq/detail/producer/transaction.hpp>
#include <rmq/detail/trace/tracer.hpp>

namespace rmq {

/// Java's TransactionSendResult: the half message's SendResult and what the local transaction decided.
struct TransactionSendResult : SendResult {
    LocalTransactionState local_transaction_state = LocalTransactionState::Unknow;
};

/// Java's TransactionListener.checkLocalTransaction: `check_local_transaction(const MessageExt&)` tells
/// the broker, which asks about a half message still pending, what became of its local transaction.
template <class L>
concept TransactionCheckListener = requires(L& l, const MessageExt& m) {
    { l.check_local_transaction(m) } -> std::convertible_to<LocalTransactionState>;
};

/// Java's TransactionListener.executeLocalTransaction for an `arg` of type Arg:
/// `execute_local_transaction(const Message&, Arg)` runs the local transaction of a half message just
/// stored.
template <class L, class Arg>
concept LocalTransactionExecutor = requires(L& l, const Message& m, Arg&& arg) {
    { l.execute_local_transaction(m, std::forward<Arg>(arg)) } -> std::convertible_to<LocalTransactionState>;
};

/// Java's TransactionListener: both methods.
///
/// Valid: a struct with `LocalTransactionState execute_local_transaction(const rmq::Message&, int)` and
/// `LocalTransactionState check_local_transaction(const rmq::MessageExt&)`. Invalid: one returning bool.
template <class L, class Arg>
concept TransactionListener = TransactionCheckListener<L> && LocalTransactionExecutor<L, Arg>;

/// Java's TransactionMQProducer over a transport with rmq::HasTransactions.
///
/// `send_message_in_transaction(msg, arg)` sends `msg` as a half message (TRAN_MSG=true and PGROUP, the
/// prepared sysFlag on the wire; a delay level is dropped, as in Java), which the broker keeps invisible;
/// then runs the listener's `execute_local_transaction(msg, arg)` on the caller's thread and ends the
/// transaction with END_TRANSACTION (oneway): CommitMessage makes the message visible in its topic,
/// RollbackMessage discards it, Unknow leaves it to the broker's check-back. A send that fails throws (as
/// Producer::send) and the listener is not called; a send stored with a FLUSH_* / SLAVE_NOT_AVAILABLE status
/// is rolled back.
///
/// A listener that throws means Unknow (Java's behaviour): the exception is logged and named in the
/// request's remark, the half message stays pending and the broker checks back later; nothing is lost and
/// nothing uncommitted is delivered.
///
/// Check-backs (CHECK_TRANSACTION_STATE, every transactionCheckInterval for half messages older than
/// transactionTimeOut, up to transactionCheckMax times) reach any running producer of the group, also one
/// started after the producer that sent the half message died. They are answered on the producer's check
/// threads (check_thread_pool_max_size), never on the transport's thread: the listener's
/// `check_local_transaction(msg)` runs there, then END_TRANSACTION with fromTransactionCheck=true. The
/// listener must therefore be safe to call from the caller's thread and a check thread at once.
template <Transport Tr, class Listener>
requires HasTransactions<Tr> && std::copy_constructible<Tr> && TransactionCheckListener<Listener> &&
         std::move_constructible<Listener>
class TransactionProducer {
public:
    TransactionProducer(Tr transport, ProducerConfig config, Listener listener)
        : shared_(std::make_shared<Shared>(transport, std::move(listener), config))
        , producer_(std::move(transport), std::move(config))
        , ids_(shared_->transport.clock()) {}

    TransactionProducer(const TransactionProducer&) = delete;
    TransactionProducer& operator=(const TransactionProducer&) = delete;

    /// Shuts down if still running.
    ~TransactionProducer() {
        try {
            shutdown();
        } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
        }
    }

    /// Producer::start (rmq::InvalidArgument for a bad configuration), then takes the group's check-backs.
    void start() {
        if (producer_.config().check_thread_pool_max_size <= 0 ||
            producer_.config().check_request_hold_max <= 0) {
            throw InvalidArgument("ProducerConfig: check_thread_pool_max_size and check_request_hold_max "
                                  "must be positive");
        }
        producer_.start();
        shared_->tracer = producer_.tracer();
        std::weak_ptr<Shared> weak = shared_;
        shared_->transport.set_transaction_check_handler(producer_.config().producer_group,
                                                         [weak](TransactionCheck check) {
                                                             if (auto s = weak.lock()) {
                                                                 s->on_check(std::move(check));
                                                             }
                                                         });
    }

    /// Stops taking check-backs, answers those already queued, then Producer::shutdown.
    void shutdown() {
        shared_->transport.set_transaction_check_handler(producer_.config().producer_group, {});
        shared_->checks.stop();
        producer_.shutdown();
    }

    /// Java's sendMessageInTransaction(msg, arg); see the class comment. The result's transaction id is the
    /// broker's (the message's UNIQ_KEY).
    template <class Arg>
    requires LocalTransactionExecutor<Listener, Arg>
    TransactionSendResult send_message_in_transaction(const Message& msg, Arg&& arg) {
        Message m = msg;
        m.clear_property(property::delay_time_level);
        m.set_property(property::transaction_prepared, "true");
        m.set_property(property::producer_group, producer_.config().producer_group);
        if (!m.has_property(property::uniq_client_message_id_keyidx)) {
            m.set_property(property::uniq_client_message_id_keyidx, ids_.next());
        }
        const SendResult sent = producer_.send(m);
        detail::ListenerOutcome outcome;
        switch (sent.status) {
        case SendStatus::SendOk:
            if (!sent.transaction_id.empty()) {
                m.set_property("__transactionId__", sent.transaction_id);
            }
            m.set_transaction_id(std::string(m.property_view(property::uniq_client_message_id_keyidx)));
            outcome = detail::call_listener([&] {
                return shared_->listener.execute_local_transaction(std::as_const(m), std::forward<Arg>(arg));
            });
            log_outcome(m, outcome);
            break;
        default:
            outcome.state = LocalTransactionState::RollbackMessage;
            break;
        }
        const auto end = detail::end_of_send(m, sent, producer_.config().producer_group, outcome);
        if (auto* tracer = producer_.tracer()) {
            tracer->on_end_transaction(m,
                                       detail::trace::store_host_of(sent.offset_msg_id, end.broker_name),
                                       sent.msg_id,
                                       m.transaction_id(),
                                       outcome.state,
                                       false);
        }
        try {
            shared_->transport.end_transaction(end);
        } catch (const std::exception& e) {
            log_message(LogLevel::Warn,
                        fmt::format("local transaction of {} ended {}, but end broker transaction failed: {}",
                                    sent.msg_id,
                                    detail::java_name(outcome.state),
                                    e.what()));
        }
        TransactionSendResult r;
        static_cast<SendResult&>(r) = sent;
        r.local_transaction_state = outcome.state;
        return r;
    }

    /// The producer: plain sends of any form go through it too, as through a Java TransactionMQProducer.
    [[nodiscard]] Producer<Tr>& producer() noexcept { return producer_; }

    [[nodiscard]] const ProducerConfig& config() const noexcept { return producer_.config(); }

    /// The listener (shared with the check threads).
    [[nodiscard]] Listener& listener() noexcept { return shared_->listener; }

private:
    /// What the check-back handler reaches: it may outlive neither this object nor, through a weak
    /// pointer, be reached after it.
    struct Shared {
        Tr transport;
        Listener listener;
        std::string group;
        /// The producer's trace dispatcher (enable_msg_trace), set at start; the check threads stop first.
        detail::trace::Tracer* tracer = nullptr;
        detail::AsyncSender checks;

        Shared(Tr t, Listener l, const ProducerConfig& config)
            : transport(std::move(t))
            , listener(std::move(l))
            , group(config.producer_group)
            , checks(static_cast<std::size_t>(std::max(1, config.check_thread_pool_max_size)),
                     static_cast<std::size_t>(std::max(1, config.check_request_hold_max))) {}

        /// On the transport's thread: queue the check (dropped when the queue is full or stopped).
        void on_check(TransactionCheck check) {
            try {
                checks.acquire(0);
            } catch (const Error& e) {
                log_message(LogLevel::Warn,
                            fmt::format("transaction check of {} dropped: {}", check.msg_id, e.what()));
                return;
            }
            auto task = std::make_shared<TransactionCheck>(std::move(check));
            try {
                checks.post([this, task] {
                    answer(*task);
                    checks.release();
                });
            } catch (const Error&) {
                checks.release();
            }
        }

        /// On a check thread: ask the listener, answer the broker.
        void answer(const TransactionCheck& check) noexcept {
            const auto outcome =
                detail::call_listener([&] { return listener.check_local_transaction(check.message); });
            if (!outcome.error.empty()) {
                log_message(LogLevel::Error,
                            fmt::format("Broker call checkTransactionState, but checkLocalTransactionState "
                                        "exception: {}",
                                        outcome.error));
            }
            const auto end = detail::end_of_check(check, group, outcome);
            if (tracer != nullptr) {
                const auto uniq = check.message.property_view(property::uniq_client_message_id_keyidx);
                tracer->on_end_transaction(check.message,
                                           check.broker_addr.empty() ? check.broker_name : check.broker_addr,
                                           end.msg_id,
                                           uniq.empty() ? check.transaction_id : std::string(uniq),
                                           outcome.state,
                                           true);
            }
            try {
                transport.end_transaction(end);
            } catch (const std::exception& e) {
                log_message(LogLevel::Error, fmt::format("endTransactionOneway exception: {}", e.what()));
            }
        }
    };

    static void log_outcome(const Message& m, const detail::ListenerOutcome& outcome) {
        if (!outcome.error.empty()) {
            log_message(
                LogLevel::Error,
                fmt::format("executeLocalTransactionBranch exception, messageTopic: {} transactionId: "
                            "{}: {}",
                            m.topic(),
                            m.transaction_id(),
                            outcome.error));
        } else if (outcome.state != LocalTransactionState::CommitMessage) {
            log_message(
                LogLevel::Info,
                fmt::format("executeLocalTransactionBranch return: {} messageTopic: {} transactionId: {}",
                            detail::java_name(outcome.state),
                            m.topic(),
                            m.transaction_id()));
        }
    }

    std::shared_ptr<Shared> shared_;
    Producer<Tr> producer_;
    UniqueIdGenerator ids_;
};

}  // namespace rmq
