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
    auto failure = Wait::Failure::None;
    std::string what;
    if (error || !answer) {
        failure = Wait::Failure::Other;
        what = "POP_MESSAGE failed without a response";
        try {
            if (error) {
                std::rethrow_exception(error);
            }
        } catch (const Timeout& e) {
            failure = Wait::Failure::Timeout;
            what = e.what();
        } catch (const TlsError& e) {
            failure = Wait::Failure::Tls;
            what = e.what();
        } catch (const std::exception& e) {
            what = e.what();
        } catch (...) {
            what = "POP_MESSAGE failed with an unknown error";
        }
    }
    const std::lock_guard lock(wait.mutex);
    wait.answer = std::move(answer);
    wait.failure = failure;
    wait.failure_what = std::move(what);
    wait.done = true;
    wait.cv.notify_all();
}

RMQ_DECL bool PopWaits::await(Wait& wait) {
    std::unique_lock lock(wait.mutex);
    wait.cv.wait(lock, [&wait] { return wait.done || wait.interrupted; });
    return wait.done;
}

RMQ_DECL remoting::Command PopWaits::answer_of(Wait& wait) {
    switch (wait.failure) {
    case Wait::Failure::None:
        return std::move(*wait.answer);
    case Wait::Failure::Timeout:
        throw Timeout(wait.failure_what);
    case Wait::Failure::Tls:
        throw TlsError(wait.failure_what);
    case Wait::Failure::Other:
        break;
    }
    throw Error(wait.failure_what);
}

}  // namespace rmq::detail
