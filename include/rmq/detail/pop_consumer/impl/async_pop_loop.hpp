#pragma once

/// @file detail/pop_consumer/impl/async_pop_loop.hpp
/// AsyncPopLoop's definitions.

#include <exception>
#include <utility>

#include <rmq/detail/pop_consumer/async_pop_loop.hpp>

namespace rmq::detail {

template <class T>
std::shared_ptr<AsyncPopLoop<T>>
AsyncPopLoop<T>::start(ConsumerState<T>& state, PopConsume<T>& consume, std::shared_ptr<PopQueue> q) {
    auto loop = std::make_shared<AsyncPopLoop>(state, consume, std::move(q));
    loop->again(0);
    return loop;
}

/// Callbacks hold the loop weakly: a loop let go and reaped meanwhile is simply not run.
template <class T>
void AsyncPopLoop<T>::again(std::int64_t millis) {
    auto run = [weak = this->weak_from_this()] {
        if (const auto self = weak.lock()) {
            self->step();
        }
    };
    if (millis > 0) {
        s_.schedule(millis, std::move(run));
    } else {
        s_.gate->post(std::move(run));
    }
}

/// executePopPullRequestImmediately: suspended and flow-controlled queues wait on a timer.
template <class T>
void AsyncPopLoop<T>::step() {
    if (halted_.load() || s_.stopping.load()) {
        halted_.store(true);
        return;
    }
    if (s_.paused.load()) {
        again(s_.config.pull_time_delay_mills_when_suspend);
        return;
    }
    if (q_->in_flight.load() > s_.config.pop_threshold_for_queue) {  // Java: waitAckMsgCount >
        again(s_.config.pull_time_delay_mills_when_flow_control);
        return;
    }
    const PopArgs args = pop_args_of(s_, *q_);
    const std::int64_t begin = s_.clock->steady_millis();
    in_flight_.store(true);
    // The completion runs on the transport's thread (or here, when nothing could be sent): it turns a
    // failure into plain data there and goes back onto the event loop through the consumer's gate.
    s_.transport.pop_message(
        args,
        [weak = this->weak_from_this(), gate = s_.gate, args, begin](PopResult result,
                                                                     const std::exception_ptr& error) {
            gate->post([weak, args, begin, answer = PopAnswer::of(std::move(result), error)]() mutable {
                if (const auto self = weak.lock()) {
                    self->answered(args, begin, std::move(answer));
                }
            });
        });
}

template <class T>
void AsyncPopLoop<T>::answered(const PopArgs& args, std::int64_t begin, PopAnswer answer) {
    in_flight_.store(false);
    if (halted_.load()) {
        answer.result.msg_found_list
            .clear();  // shutdown or let go: they come back after their invisible time
    }
    const PopNext next = after_pop(s_, consume_, q_, args, begin, std::move(answer));
    if (next.stop) {
        halted_.store(true);
        return;
    }
    again(next.pause_millis);
}

}  // namespace rmq::detail
