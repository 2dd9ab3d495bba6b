#pragma once

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/broker/broker_state.hpp>

namespace rmq::detail {

RMQ_DECL BrokerState::BrokerState(BrokerConfig config)
    : config_(std::move(config))
    , delays_(parse_delay_levels(config_.message_delay_level))
    , clock_(config_.clock ? config_.clock : system_clock())
    , store_(config_.broker_name)
    , subscription_groups_(config_.auto_create_subscription_group)
    , membership_(config_.notify_consumer_ids_changed_enable, config_.channel_expired_timeout)
    , locks_(config_.rebalance_lock_max_live_time)
    , held_(config_.long_polling_enable ? hold_check_interval_millis : config_.short_polling_time_mills)
    , half_(config_) {
    check_config();
    if (config_.auto_create_topic_enable) {
        store_.add_queues(std::string(auto_create_topic_key_topic),
                          static_cast<std::size_t>(config_.default_topic_queue_nums));
    }
}

RMQ_DECL void BrokerState::start(const std::shared_ptr<BrokerState>& self, bool driven) {
    if (driven && !clock_->is_manual()) {
        throw InvalidArgument("a driven embedded broker needs a manual clock");
    }
    {
        const std::lock_guard lock(mutex_);
        dispatcher_.mark_started_locked();
        held_.start(clock_->steady_millis());
        half_.start(clock_->steady_millis());
    }
    if (driven) {
        dispatcher_.start_driven();
    } else {
        dispatcher_.start(clock_->is_manual(),
                          Dispatcher::Timers{[this](BrokerTasks& out) { tick_locked(out); },
                                             [this] { return next_deadline_locked(); },
                                             [this] {
                                                 return clock_->steady_millis();
                                             }});
    }
    std::weak_ptr<BrokerState> weak = self;
    listener_id_ = clock_->add_listener([weak] {
        if (auto s = weak.lock()) {
            s->on_clock_advance();
        }
    });
}

RMQ_DECL void BrokerState::stop() {
    BrokerTasks async_pops;
    {
        const std::lock_guard lock(mutex_);
        if (!dispatcher_.request_stop_locked()) {
            return;
        }
        wake_pops_locked(held_pops_.wake_interrupted(0, {}), async_pops);  // they see the broker stopping
    }
    dispatch(std::move(async_pops));
    clock_->remove_listener(listener_id_);
    dispatcher_.join();
    BrokerTasks out;
    {
        const std::lock_guard lock(mutex_);
        dispatcher_.mark_stopped_locked();
        for (auto& h : held_.take_all()) {
            out.push_back([cb = std::move(h.callback)] {
                cb(Outcome<PullResult>(response_code::system_error, "the broker is shut down"));
            });
        }
    }
    for (auto& t : out) {
        Dispatcher::run_task(t);
    }
}

RMQ_DECL void BrokerState::check_config() const {
    if (config_.broker_name.empty()) {
        throw InvalidArgument("BrokerConfig.broker_name is empty");
    }
    if (config_.default_topic_queue_nums <= 0) {
        throw InvalidArgument("BrokerConfig.default_topic_queue_nums must be positive");
    }
    if (config_.max_message_size <= 0) {
        throw InvalidArgument("BrokerConfig.max_message_size must be positive");
    }
    if (config_.transaction_check_interval <= 0 || config_.transaction_time_out < 0) {
        throw InvalidArgument("BrokerConfig.transaction_check_interval must be positive");
    }
    if (config_.max_pop_polling_size < 0 || config_.pop_polling_size < 0) {
        throw InvalidArgument("BrokerConfig.max_pop_polling_size and pop_polling_size must not be negative");
    }
    if (config_.max_transfer_count_on_message_in_memory <= 0) {
        throw InvalidArgument("BrokerConfig.max_transfer_count_on_message_in_memory must be positive");
    }
}

RMQ_DECL void BrokerState::check_own_queue(const MessageQueue& mq) const {
    if (mq.broker_name != config_.broker_name) {
        throw InvalidArgument(fmt::format("{} does not belong to broker {}", mq, config_.broker_name));
    }
}

RMQ_DECL void BrokerState::check_running_locked() const {
    if (dispatcher_.stopping_locked()) {
        throw BrokerError(response_code::system_error, "the broker is shut down");
    }
}

RMQ_DECL void BrokerState::tick_locked(BrokerTasks& out) {
    deliver_due_locked(out);
    const std::int64_t now = clock_->steady_millis();
    // PullRequestHoldService's periodic check (every 5 s, or short_polling_time_mills) wakes held pulls whose
    // queue grew, whatever the new messages' tags.
    for (auto& h : held_.take_due(now, store_)) {
        answer_held_locked(std::move(h), out);
    }
    wake_pops_locked(held_pops_.wake_due(now), out);
    wake_unblocked_orders_locked(out);
    membership_.expire(now, out);
    check_transactions_locked(out);
    revive_locked(out);
}

RMQ_DECL std::optional<std::int64_t> BrokerState::next_deadline_locked() const {
    std::optional<std::int64_t> next;
    for (const auto t : {delays_.next_due(),
                         held_.next_deadline(),
                         held_pops_.next_deadline(),
                         membership_.next_expiry(),
                         half_.next_round(),
                         pops_.next_deadline(),
                         pop_orders_.next_unblock()}) {
        if (t) {
            next = next ? std::min(*next, *t) : *t;
        }
    }
    return next;
}

RMQ_DECL std::optional<std::int64_t> BrokerState::next_deadline() const {
    const std::lock_guard lock(mutex_);
    return next_deadline_locked();
}

RMQ_DECL void BrokerState::checkpoint_offsets() {
    const std::lock_guard lock(mutex_);
    offsets_.checkpoint();
}

RMQ_DECL void BrokerState::restart() {
    BrokerTasks out;
    {
        const std::lock_guard lock(mutex_);
        offsets_.restore_checkpoint();
        locks_.clear();
        membership_.clear_channels();
        wake_pops_locked(held_pops_.wake_interrupted(0, {}), out);
        for (auto& h : held_.take_all()) {
            out.push_back([cb = std::move(h.callback)] {
                cb(Outcome<PullResult>(response_code::system_error, "the broker restarted"));
            });
        }
    }
    dispatch(std::move(out));
}

RMQ_DECL void BrokerState::on_clock_advance() {
    BrokerTasks out;
    {
        const std::lock_guard lock(mutex_);
        if (dispatcher_.stopping_locked()) {
            return;
        }
        tick_locked(out);
    }
    dispatch(std::move(out));
}

}  // namespace rmq::detail
