#pragma once

#include <utility>

#include <rmq/detail/broker/broker_state.hpp>
#include <rmq/detail/broker/pull.hpp>

namespace rmq::detail {

RMQ_DECL void BrokerState::pull(const PullArgs& args, PullCallback callback, const PostToCaller* post) {
    BrokerTasks out;
    std::optional<BrokerTask> ready;
    std::optional<Outcome<PullResult>> immediate;
    {
        const std::lock_guard lock(mutex_);
        if (dispatcher_.stopping_locked()) {
            immediate.emplace(response_code::system_error, "the broker is shut down");
        } else if (const auto code = faults_.take_code(BrokerRequest::Pull)) {
            out.push_back([cb = std::move(callback), code = *code]() mutable {
                cb(Outcome<PullResult>(code, "injected failure of PULL_MESSAGE"));
            });
        } else if (auto r = process_pull_locked(args, true, callback)) {
            BrokerTask task = [cb = std::move(callback), res = std::move(*r)]() mutable {
                cb(std::move(res));
            };
            if (post != nullptr && *post) {
                ready.emplace(std::move(task));
            } else {
                out.push_back(std::move(task));
            }
        }
    }
    if (immediate) {
        // NOLINTNEXTLINE(bugprone-use-after-move): immediate is set only on the branch that keeps callback
        callback(std::move(*immediate));
        return;
    }
    if (ready) {
        (*post)(std::move(*ready));
        return;
    }
    dispatch(std::move(out));
}

RMQ_DECL std::size_t BrokerState::held_pull_count() const {
    const std::lock_guard lock(mutex_);
    return held_.count();
}

RMQ_DECL std::optional<Outcome<PullResult>>
BrokerState::process_pull_locked(const PullArgs& a, bool allow_suspend, PullCallback& callback) {
    if (auto failed = check_pull_target(a, config_, subscription_groups_, store_)) {
        return failed;
    }
    auto parsed = pull_subscription(a, membership_, config_);
    if (!parsed.ok()) {
        return Outcome<PullResult>(parsed.code(), parsed.remark());
    }
    std::optional<SubscriptionData> sub(std::move(parsed).value());
    int code = response_code::success;
    PullResult result = get_message(*store_.find_queue(a.mq.topic, a.mq.queue_id), a, sub, config_, code);
    if (allow_suspend && (a.sys_flag & pull_sys_flag::commit_offset) != 0) {
        offsets_.store(a.consumer_group, a.mq, a.commit_offset);
    }
    if (code == response_code::pull_not_found && allow_suspend && try_hold_locked(a, callback, sub)) {
        return std::nullopt;
    }
    return Outcome<PullResult>(std::move(result));
}

RMQ_DECL bool BrokerState::try_hold_locked(const PullArgs& a,
                                           PullCallback& callback,
                                           std::optional<SubscriptionData>& sub) {
    if ((a.sys_flag & pull_sys_flag::suspend) == 0) {
        return false;
    }
    const std::int64_t hold =
        config_.long_polling_enable ? a.suspend_timeout_millis : config_.short_polling_time_mills;
    if (hold <= 0) {
        return false;
    }
    held_.hold(HeldPull{a, std::move(callback), clock_->steady_millis() + hold, std::move(sub)});
    dispatcher_.wake_locked();  // the dispatcher's next deadline moved
    return true;
}

RMQ_DECL void BrokerState::notify_arrival_locked(const std::string& topic,
                                                 std::int32_t queue_id,
                                                 std::int64_t tags_code,
                                                 BrokerTasks& out) {
    for (auto& h : held_.take_arrived(topic, queue_id, tags_code, store_)) {
        answer_held_locked(std::move(h), out);
    }
    wake_pops_locked(held_pops_.wake_arrived(topic, queue_id, tags_code), out);
}

RMQ_DECL void BrokerState::answer_held_locked(HeldPull h, BrokerTasks& out) {
    auto r = process_pull_locked(h.args, false, h.callback);
    out.push_back([cb = std::move(h.callback), res = std::move(*r)]() mutable { cb(std::move(res)); });
}

}  // namespace rmq::detail
