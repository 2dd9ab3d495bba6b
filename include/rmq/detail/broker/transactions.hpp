#pragma once

/// @file detail/broker/transactions.hpp
/// Transactional messages on the embedded broker (TransactionalMessageServiceImpl, EndTransactionProcessor,
/// TransactionalMessageCheckService): a half message (TRAN_MSG=true) is stored in RMQ_SYS_TRANS_HALF_TOPIC,
/// where no consumer sees it, until END_TRANSACTION commits it (stored again in its real topic and queue) or
/// rolls it back (an op record in RMQ_SYS_TRANS_OP_HALF_TOPIC). Unresolved ones are checked back with their
/// producer group every transaction_check_interval on the broker's Clock, once older than
/// transaction_time_out; each check puts a copy back with TRANSACTION_CHECK_TIMES + 1, and one checked
/// transaction_check_max times is discarded to TRANS_CHECK_MAX_TIME_TOPIC.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message.hpp>
#include <rmq/protocol.hpp>
#include <rmq/transport/broker_config.hpp>

namespace rmq::detail {

/// TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC: where half messages wait.
inline constexpr std::string_view trans_half_topic = "RMQ_SYS_TRANS_HALF_TOPIC";
/// TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC: records of resolved half messages.
inline constexpr std::string_view trans_op_half_topic = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
/// TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC: half messages discarded after transactionCheckMax.
inline constexpr std::string_view trans_check_max_time_topic = "TRANS_CHECK_MAX_TIME_TOPIC";
/// MessageConst.PROPERTY_TRANSACTION_CHECK_TIMES.
inline constexpr std::string_view property_transaction_check_times = "TRANSACTION_CHECK_TIMES";
/// TransactionalMessageUtil.REMOVE_TAG: the tag of an op record.
inline constexpr std::string_view trans_op_remove_tag = "d";
/// MessageSysFlag.TRANSACTION_COMMIT_TYPE, the sysFlag of a committed message.
inline constexpr std::int32_t sys_flag_transaction_commit = 0x8;

/// Whether a sent message is a half message: TRAN_MSG reads as true (Boolean.parseBoolean).
bool is_half_message(const Message& m);

/// TransactionalMessageBridge.parseHalfMessageInner: REAL_TOPIC / REAL_QID keep the destination, the
/// message moves to RMQ_SYS_TRANS_HALF_TOPIC queue 0.
void make_half(MessageExt& m);

/// EndTransactionProcessor.endMessageTransaction: the message a commit stores, in its real topic and queue,
/// without REAL_TOPIC / REAL_QID / TRAN_MSG, with the commit sysFlag and the half's commit-log offset as its
/// prepared transaction offset.
MessageExt committed_message(const MessageExt& half);

/// The op record of a resolved half message (tag "d", body: the half's queue offset).
MessageExt op_message(const MessageExt& half);

/// putBackHalfMsgQueue: a copy of the half message for the half topic, TRANSACTION_CHECK_TIMES set.
MessageExt put_back_copy(const MessageExt& half, std::int32_t check_times);

/// resolveDiscardMsg: the half message for TRANS_CHECK_MAX_TIME_TOPIC queue 0.
MessageExt discarded_copy(const MessageExt& half);

/// The CHECK_TRANSACTION_STATE of a stored half message (AbstractTransactionalMessageCheckListener.
/// sendCheckMessage): the header's fields and the message with its real topic and queue id.
TransactionCheck check_of(const MessageExt& half, std::string_view broker_name);

/// TransactionalMessageServiceImpl.getImmunityTime: how old (ms) a half message must be before its
/// check-back: CHECK_IMMUNITY_TIME_IN_SECONDS x 1000 when that parses as a long other than -1 (even below the
/// time-out, as in Java; saturated instead of Java's overflow), else transaction_time_out.
std::int64_t check_immunity_millis(const MessageExt& half, std::int64_t transaction_time_out);

/// The unresolved half messages, by the commit-log offset of their latest copy, and the check schedule.
class HalfMessages {
public:
    explicit HalfMessages(const BrokerConfig& config) noexcept
        : interval_(config.transaction_check_interval)
        , time_out_(config.transaction_time_out) {}

    /// The first check round runs one interval after steady time `now`.
    void start(std::int64_t now) noexcept { next_round_ = now + interval_; }

    void add(std::shared_ptr<const MessageExt> stored);

    /// The pending half message a commit-log offset names (an earlier copy's offset names the latest copy),
    /// or nullptr when it is resolved or unknown.
    [[nodiscard]] std::shared_ptr<const MessageExt> find(std::int64_t commit_log_offset) const;

    /// The transaction is resolved: its latest copy (at `commit_log_offset`) is forgotten.
    void remove(std::int64_t commit_log_offset);

    /// A check put a new copy back: `from` (the previous copy's offset) now names `copy`.
    void replace(std::int64_t from, std::shared_ptr<const MessageExt> copy);

    /// A check round due at steady time `now`: the pending messages born at least their check immunity
    /// (check_immunity_millis) before `wall_now`, oldest first; empty when no round is due.
    std::vector<std::shared_ptr<const MessageExt>> take_round(std::int64_t now, std::int64_t wall_now);

    /// Steady time of the next check round while a half message is pending.
    [[nodiscard]] std::optional<std::int64_t> next_round() const;

    [[nodiscard]] std::size_t count() const noexcept { return pending_.size(); }

private:
    std::int64_t interval_;
    std::int64_t time_out_;
    std::int64_t next_round_ = 0;
    std::map<std::int64_t, std::shared_ptr<const MessageExt>> pending_;
    /// An earlier copy's commit-log offset -> its latest copy's (a late END_TRANSACTION still finds it).
    std::map<std::int64_t, std::int64_t> aliases_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/transactions.ipp>
#endif
