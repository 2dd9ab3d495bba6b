#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>

#include <rmq/detail/broker/broker_state.hpp>
#include <rmq/detail/broker/pop_long_poll.hpp>

namespace rmq::detail {

/// The checks of a POP_MESSAGE that need no lock.
inline void check_pop_args(const PopArgs& a) {
    if (a.max_msg_nums <= 0 || a.max_msg_nums > 32) {
        throw BrokerError(response_code::invalid_parameter,
                          fmt::format("the broker pop message number {} is not in [1, 32]", a.max_msg_nums));
    }
    if (a.invisible_time_millis <= 0) {
        throw BrokerError(response_code::invalid_parameter,
                          fmt::format("invisible time {} ms is not positive", a.invisible_time_millis));
    }
}

RMQ_DECL PopResult BrokerState::pop_message(const PopArgs& a, std::uint64_t handle) {
    check_group(a.consumer_group);
    check_topic(a.topic);
    check_pop_args(a);
    std::unique_lock lock(mutex_);
    check_running_locked();
    faults_.take(BrokerRequest::Pop);
    // PopMessageRequestHeader.bornTime + pollTime: a pop woken for nothing is held again until then.
    const std::int64_t deadline = clock_->steady_millis() + a.poll_time_millis;
    for (;;) {
        const auto sub = pop_filter_locked(a);
        PopResult result = pop_locked(a, sub);
        if (result.status == PopStatus::Found || !may_hold_pop_locked(a, handle) ||
            clock_->steady_millis() >= deadline) {
            return result;  // POLLING_TIMEOUT when empty
        }
        HeldPop held;
        held.topic = a.topic;
        held.group = a.consumer_group;
        held.queue_id = a.queue_id;
        held.handle = handle;
        held.deadline = deadline;
        held.filter = sub;
        const auto wake = held.wake;
        if (!held_pops_.hold(std::move(held), config_.max_pop_polling_size, config_.pop_polling_size)) {
            result.status = PopStatus::PollingFull;
            return result;
        }
        dispatcher_.wake_locked();  // the dispatcher's next deadline moved
        pop_woken_.wait(lock, [&] { return *wake != PopWake::Held; });
        check_running_locked();
        if (*wake == PopWake::Interrupted) {
            return result;
        }
    }
}

/// The answer of an asynchronous pop, for the dispatcher.
inline BrokerTask
answer_async_pop(const std::shared_ptr<AsyncPop>& pop, PopResult result, std::exception_ptr error) {
    return [pop, result = std::move(result), error = std::move(error)]() mutable {
        pop->done(std::move(result), std::move(error));
    };
}

RMQ_DECL void BrokerState::pop_message(const PopArgs& a, PopCompletion done, std::uint64_t handle) {
    const auto pop = std::make_shared<AsyncPop>(AsyncPop{a, std::move(done)});
    BrokerTasks out;
    try {
        check_group(a.consumer_group);
        check_topic(a.topic);
        check_pop_args(a);
        const std::lock_guard lock(mutex_);
        check_running_locked();
        faults_.take(BrokerRequest::Pop);
        run_async_pop_locked(pop, handle, clock_->steady_millis() + a.poll_time_millis, out);
    } catch (...) {
        out.push_back(answer_async_pop(pop, {}, std::current_exception()));
    }
    dispatch(std::move(out));
}

RMQ_DECL void BrokerState::run_async_pop_locked(const std::shared_ptr<AsyncPop>& pop,
                                                std::uint64_t handle,
                                                std::int64_t deadline,
                                                BrokerTasks& out) {
    const PopArgs& a = pop->args;
    const auto sub = pop_filter_locked(a);
    PopResult result = pop_locked(a, sub);
    if (result.status == PopStatus::Found || !may_hold_pop_locked(a, handle, true) ||
        clock_->steady_millis() >= deadline) {
        out.push_back(answer_async_pop(pop, std::move(result), nullptr));
        return;
    }
    HeldPop held;
    held.topic = a.topic;
    held.group = a.consumer_group;
    held.queue_id = a.queue_id;
    held.handle = handle;
    held.deadline = deadline;
    held.filter = sub;
    held.async = pop;
    if (!held_pops_.hold(std::move(held), config_.max_pop_polling_size, config_.pop_polling_size)) {
        result.status = PopStatus::PollingFull;
        out.push_back(answer_async_pop(pop, std::move(result), nullptr));
        return;
    }
    dispatcher_.wake_locked();  // the dispatcher's next deadline moved
}

RMQ_DECL bool BrokerState::may_hold_pop_locked(const PopArgs& a, std::uint64_t handle, bool async) const {
    // A driven broker (rmq::sim) has no thread of its own to wake a held synchronous pop; an asynchronous
    // one needs none.
    return a.poll_time_millis > 0 && (async || !dispatcher_.driven_locked()) &&
           !pops_interrupted_.contains({handle, a.consumer_group});
}

/// A woken asynchronous pop runs again here, under the lock (as its thread would after the wake): answered
/// empty when interrupted (an error once the broker stops), else popped again or held until its deadline.
RMQ_DECL void BrokerState::wake_pops_locked(bool woke, BrokerTasks& out) {
    if (!woke) {
        return;
    }
    pop_woken_.notify_all();
    for (auto& held : held_pops_.take_woken_async()) {
        try {
            check_running_locked();
            if (*held.wake == PopWake::Interrupted) {
                PopResult empty;
                empty.status = PopStatus::PollingNotFound;
                out.push_back(answer_async_pop(held.async, std::move(empty), nullptr));
                continue;
            }
            run_async_pop_locked(held.async, held.handle, held.deadline, out);
        } catch (...) {
            out.push_back(answer_async_pop(held.async, {}, std::current_exception()));
        }
    }
}

RMQ_DECL void BrokerState::interrupt_pops(std::uint64_t handle, const std::string& group) {
    BrokerTasks out;
    {
        const std::lock_guard lock(mutex_);
        pops_interrupted_.insert({handle, group});
        wake_pops_locked(held_pops_.wake_interrupted(handle, group), out);
    }
    dispatch(std::move(out));
}

RMQ_DECL void BrokerState::resume_pops(std::uint64_t handle, const std::string& group) {
    const std::lock_guard lock(mutex_);
    pops_interrupted_.erase({handle, group});
}

RMQ_DECL std::size_t BrokerState::held_pop_count() const {
    const std::lock_guard lock(mutex_);
    return held_pops_.count();
}

}  // namespace rmq::detail
