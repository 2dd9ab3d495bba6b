#pragma once

/// @file remoting/headers/transaction.hpp
/// Transactional messages: END_TRANSACTION (client to broker) and CHECK_TRANSACTION_STATE (broker to client).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rmq/protocol.hpp>
#include <rmq/remoting/headers/fields.hpp>

namespace rmq::remoting {

/// MessageSysFlag's transaction values, as END_TRANSACTION's commitOrRollback carries them.
inline std::int32_t transaction_sys_flag(LocalTransactionState state) noexcept {
    switch (state) {
    case LocalTransactionState::CommitMessage:
        return 0x8;  // TRANSACTION_COMMIT_TYPE
    case LocalTransactionState::RollbackMessage:
        return 0xC;  // TRANSACTION_ROLLBACK_TYPE
    default:
        return 0x0;  // TRANSACTION_NOT_TYPE
    }
}

/// END_TRANSACTION (37) request header (client to broker, oneway). `topic` and `bname` are 5.x fields
/// (a 4.x broker ignores them).
struct EndTransactionRequestHeader {
    static constexpr std::string_view java_name = "EndTransactionRequestHeader";
    std::optional<std::string> topic;
    std::string producer_group;
    std::int64_t tran_state_table_offset = 0;
    std::int64_t commit_log_offset = 0;
    /// MessageSysFlag TRANSACTION_COMMIT_TYPE (8), TRANSACTION_ROLLBACK_TYPE (12) or TRANSACTION_NOT_TYPE
    /// (0).
    std::int32_t commit_or_rollback = 0;
    bool from_transaction_check = false;
    std::string msg_id;
    std::optional<std::string> transaction_id;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("producerGroup", s.producer_group);
        v("tranStateTableOffset", s.tran_state_table_offset);
        v("commitLogOffset", s.commit_log_offset);
        v("commitOrRollback", s.commit_or_rollback);
        v("fromTransactionCheck", s.from_transaction_check);
        v("msgId", s.msg_id);
        v("transactionId", s.transaction_id);
        v("bname", s.bname);
    }

    /// The header for rmq::EndTransactionArgs (DefaultMQProducerImpl.endTransaction and
    /// checkTransactionState): empty strings are not sent.
    static EndTransactionRequestHeader from(const EndTransactionArgs& a) {
        EndTransactionRequestHeader h;
        if (!a.topic.empty()) {
            h.topic = a.topic;
        }
        h.producer_group = a.producer_group;
        h.tran_state_table_offset = a.tran_state_table_offset;
        h.commit_log_offset = a.commit_log_offset;
        h.commit_or_rollback = transaction_sys_flag(a.state);
        h.from_transaction_check = a.from_transaction_check;
        h.msg_id = a.msg_id;
        if (!a.transaction_id.empty()) {
            h.transaction_id = a.transaction_id;
        }
        if (!a.broker_name.empty()) {
            h.bname = a.broker_name;
        }
        return h;
    }
};

/// CHECK_TRANSACTION_STATE (39) request header (broker to client, oneway; body: the half message's record).
/// `topic` and `bname` are 5.x fields.
struct CheckTransactionStateRequestHeader {
    static constexpr std::string_view java_name = "CheckTransactionStateRequestHeader";
    std::optional<std::string> topic;
    std::int64_t tran_state_table_offset = 0;
    std::int64_t commit_log_offset = 0;
    std::optional<std::string> msg_id;
    std::optional<std::string> transaction_id;
    std::optional<std::string> offset_msg_id;
    std::optional<std::string> bname;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("tranStateTableOffset", s.tran_state_table_offset);
        v("commitLogOffset", s.commit_log_offset);
        v("msgId", s.msg_id);
        v("transactionId", s.transaction_id);
        v("offsetMsgId", s.offset_msg_id);
        v("bname", s.bname);
    }
};

}  // namespace rmq::remoting
