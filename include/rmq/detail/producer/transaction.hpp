#pragma once

/// @file detail/producer/transaction.hpp
/// rmq::TransactionProducer's plumbing: the END_TRANSACTION arguments of a send and of a check-back
/// (DefaultMQProducerImpl.endTransaction / checkTransactionState), and running a user's listener so that
/// an exception becomes LocalTransactionState::Unknow with a remark.

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/protocol.hpp>
#include <rmq/unique_id.hpp>

namespace rmq::detail {

/// The commit-log offset an offset message id encodes (MessageDecoder.decodeMessageId: its last 8 bytes, for
/// IPv4 and IPv6 store hosts). Throws rmq::InvalidArgument for an id that is not 32 or 56 hex digits.
inline std::int64_t commit_log_offset_of(std::string_view offset_msg_id) {
    if (offset_msg_id.size() != 32 && offset_msg_id.size() != 56) {
        throw InvalidArgument(fmt::format("not an offset message id: \"{}\"", offset_msg_id));
    }
    std::uint64_t v = 0;
    for (const std::uint8_t byte : hex_to_bytes(offset_msg_id.substr(offset_msg_id.size() - 16))) {
        v = (v << 8U) | byte;
    }
    return static_cast<std::int64_t>(v);
}

/// Java's LocalTransactionState names, for log lines.
inline std::string_view java_name(LocalTransactionState s) noexcept {
    switch (s) {
    case LocalTransactionState::CommitMessage:
        return "COMMIT_MESSAGE";
    case LocalTransactionState::RollbackMessage:
        return "ROLLBACK_MESSAGE";
    default:
        return "UNKNOW";
    }
}

/// The outcome of a listener call: its state, or Unknow and why when it threw.
struct ListenerOutcome {
    LocalTransactionState state = LocalTransactionState::Unknow;
    std::string error;
};

/// Calls `fn`; an exception (Java: any Throwable) makes the state Unknow, the broker then checks back.
template <class Fn>
ListenerOutcome call_listener(Fn&& fn) noexcept {
    ListenerOutcome out;
    try {
        out.state = static_cast<LocalTransactionState>(std::forward<Fn>(fn)());
    } catch (const std::exception& e) {
        out.state = LocalTransactionState::Unknow;
        out.error = e.what();
    } catch (...) {
        out.state = LocalTransactionState::Unknow;
        out.error = "unknown exception";
    }
    return out;
}

/// endTransaction: END_TRANSACTION for the half message `sent` got, with the local transaction's state.
inline EndTransactionArgs end_of_send(const Message& msg,
                                      const SendResult& sent,
                                      const std::string& producer_group,
                                      const ListenerOutcome& outcome) {
    EndTransactionArgs a;
    a.broker_name = sent.message_queue.broker_name;
    a.topic = msg.topic();
    a.producer_group = producer_group;
    a.tran_state_table_offset = sent.queue_offset;
    a.commit_log_offset = commit_log_offset_of(sent.offset_msg_id.empty() ? sent.msg_id : sent.offset_msg_id);
    a.state = outcome.state;
    a.from_transaction_check = false;
    a.msg_id = sent.msg_id;
    a.transaction_id = sent.transaction_id;
    if (!outcome.error.empty()) {
        a.remark = fmt::format("executeLocalTransactionBranch exception: {}", outcome.error);
    }
    return a;
}

/// checkTransactionState's processTransactionState: the answer to a broker's check-back.
inline EndTransactionArgs end_of_check(const TransactionCheck& check,
                                       const std::string& producer_group,
                                       const ListenerOutcome& outcome) {
    EndTransactionArgs a;
    a.broker_addr = check.broker_addr;
    a.broker_name = check.broker_name;
    a.topic = check.topic;
    a.producer_group = producer_group;
    a.tran_state_table_offset = check.tran_state_table_offset;
    a.commit_log_offset = check.commit_log_offset;
    a.state = outcome.state;
    a.from_transaction_check = true;
    const auto uniq = check.message.property_view(property::uniq_client_message_id_keyidx);
    a.msg_id = uniq.empty() ? check.message.msg_id() : std::string(uniq);
    a.transaction_id = check.transaction_id;
    if (!outcome.error.empty()) {
        a.remark = fmt::format("checkLocalTransactionState Exception: {}", outcome.error);
    }
    return a;
}

}  // namespace rmq::detail
