#pragma once

#include <string>
#include <utility>

#include <rmq/error.hpp>

#include <rmq/detail/remoting_transport/pop_waits.hpp>

namespace rmq::detail {

RMQ_DECL std::shared_ptr<PopWaits::Wait> PopWaits::enter(const std::string& group) {
    const std::lock_guard lock(mutex_);
    if (interrupted_.contains(group)) {
        return nullptr;
    }
    auto wait = std::make_shared<Wait>();
    waiting_.emplace(group, wait);
    return wait;
}

RMQ_DECL bool PopWaits::interrupted(const std::string& group) {
    const std::lock_guard lock(mutex_);
    return interrupted_.contains(group);
}

RMQ_DECL void PopWaits::leave(const std::string& group, const std::shared_ptr<Wait>& wait) {
    const std::lock_guard lock(mutex_);
    const auto [first, last] = waiting_.equal_range(group);
    for (auto it = first; it != last; ++it) {
        if (it->second == wait) {
            waiting_.erase(it);
            return;
        }
    }
}

RMQ_DECL void PopWaits::interrupt(const std::string& group) {
    const std::lock_guard lock(mutex_);
    interrupted_.insert(group);
    const auto [first, last] = waiting_.equal_range(group);
    for (auto it = first; it != last; ++it) {
        Wait& w = *it->second;
        const std::lock_guard wait_lock(w.mutex);
        w.interrupted = true;
        w.cv.notify_all();
    }
}

RMQ_DECL void PopWaits::resume(const std::string& group) {
    const std::lock_guard lock(mutex_);
    interrupted_.erase(group);
}

RMQ_DECL void
PopWaits::complete(Wait& wait, std::optional<remoting::Command> answer, const std::exception_ptr& error) {
    std::optional<PlainFailure> failure;
    if (error) {
        failure = PlainFailure::of(error, "POP_MESSAGE failed with an unknown error");
    } else if (!answer) {
        failure = PlainFailure::other("POP_MESSAGE failed without a response");
    }
    const std::lock_guard lock(wait.mutex);
    wait.answer = std::move(answer);
    wait.failure = std::move(failure);
    wait.done = true;
    wait.cv.notify_all();
}

RMQ_DECL bool PopWaits::await(Wait& wait) {
    std::unique_lock lock(wait.mutex);
    wait.cv.wait(lock, [&wait] { return wait.done || wait.interrupted; });
    return wait.done;
}

RMQ_DECL remoting::Command PopWaits::answer_of(Wait& wait) {
    if (wait.failure) {
        wait.failure->rethrow();
    }
    return std::move(*wait.answer);
}

}  // namespace rmq::detail
