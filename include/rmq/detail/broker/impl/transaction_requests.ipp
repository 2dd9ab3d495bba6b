#pragma once

#include <string>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>

#include <rmq/detail/broker/broker_state.hpp>
#include <rmq/detail/broker/transactions.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

RMQ_DECL std::shared_ptr<const MessageExt> BrokerState::store_half_locked(MessageExt m, BrokerTasks& out) {
    if (config_.reject_transaction_message) {
        throw BrokerError(
            response_code::no_permission,
            fmt::format("the broker[{}] sending transaction message is forbidden", config_.broker_name));
    }
    make_half(m);
    store_.ensure_queue(std::string(trans_half_topic), 0);
    auto stored = store_locked(std::move(m), out, false);
    half_.add(stored);
    return stored;
}

RMQ_DECL void BrokerState::end_transaction(const EndTransactionArgs& args) {
    if (args.state == LocalTransactionState::Unknow) {
        return;  // EndTransactionProcessor: a pending state is only logged
    }
    BrokerTasks out;
    {
        const std::lock_guard lock(mutex_);
        check_running_locked();
        faults_.take(BrokerRequest::EndTransaction);
        const auto half = half_.find(args.commit_log_offset);
        const MessageExt* named = store_.find_by_commit_offset(args.commit_log_offset);
        if (!half || named == nullptr) {
            throw BrokerError(response_code::system_error, "Find prepared transaction message failed");
        }
        // checkPrepareMessage, against the copy the request names (a check-back's or the first send's).
        if (half->property_view(property::producer_group) != args.producer_group) {
            throw BrokerError(response_code::system_error, "The producer group wrong");
        }
        if (named->queue_offset() != args.tran_state_table_offset) {
            throw BrokerError(response_code::system_error, "The transaction state table offset wrong");
        }
        if (args.state == LocalTransactionState::CommitMessage) {
            MessageExt m = committed_message(*half);
            std::optional<DelaySchedule::Wait> timer;
            if (const auto due = timer_due(m, clock_->wall_millis(), config_)) {
                timer = redirect_timer(m, *due, *clock_);
            }
            store_locked(std::move(m), out, true, timer);
        }
        // deletePrepareMessage: the op record says the half message is done.
        store_.ensure_queue(std::string(trans_op_half_topic), 0);
        store_locked(op_message(*half), out, false);
        half_.remove(half->commit_log_offset());
    }
    dispatch(std::move(out));
}

RMQ_DECL std::size_t BrokerState::half_message_count() const {
    const std::lock_guard lock(mutex_);
    return half_.count();
}

RMQ_DECL void BrokerState::check_transactions_locked(BrokerTasks& out) {
    for (const auto& half : half_.take_round(clock_->steady_millis(), clock_->wall_millis())) {
        // needDiscard: the first check sets TRANSACTION_CHECK_TIMES to 1; a message checked
        // transaction_check_max times is discarded at its next round.
        std::int32_t times = 1;
        if (half->has_property(property_transaction_check_times)) {
            times = parse_int_or(half->property_view(property_transaction_check_times), 0);
            if (times >= config_.transaction_check_max) {
                log_line(LogLevel::Warn,
                         "half message {} checked {} times: discarded to {}",
                         half->msg_id(),
                         times,
                         trans_check_max_time_topic);
                store_.ensure_queue(std::string(trans_check_max_time_topic), 0);
                store_locked(discarded_copy(*half), out, false);
                half_.remove(half->commit_log_offset());
                continue;
            }
            ++times;
        }
        auto copy = store_locked(put_back_copy(*half, times), out, false);
        half_.replace(half->commit_log_offset(), copy);
        out.push_back(check_task(std::string(copy->property_view(property::producer_group)),
                                 check_of(*copy, config_.broker_name)));
    }
}

RMQ_DECL BrokerTask BrokerState::check_task(std::string group, TransactionCheck check) const {
    // Broker2Client.checkProducerTransactionState on a channel of the group (getAvailableChannel); the
    // handler runs on the dispatcher thread, outside the broker's lock.
    return [slots = membership_.slots(), group = std::move(group), check = std::move(check)]() mutable {
        for (const auto& slot : slots) {
            TransactionCheckHandler handler;
            {
                const std::lock_guard lock(slot->mutex);
                if (const auto it = slot->transaction_checks.find(group);
                    it != slot->transaction_checks.end()) {
                    handler = it->second;
                }
            }
            if (handler) {
                handler(std::move(check));
                return;
            }
        }
        log_line(LogLevel::Warn, "Check transaction failed, channel is null. groupId={}", group);
    };
}

}  // namespace rmq::detail
