#pragma once

/// @file detail/util/caller_futures.hpp
/// The futures of asynchronous operations whose completion comes on another thread (the transport's io
/// thread, a producer thread), made so that nothing a caller reads from a future is released on that
/// thread. libstdc++ counts the holds on an exception object (an exception_ptr, a future's shared state)
/// where ThreadSanitizer cannot see it: a failure released on the completing thread after the caller read
/// it is reported as a race. So a failure is stored as a new exception (detail::PlainFailure: the one given
/// may still be held where it was made), and the completing thread leaves its hold on the shared state to a
/// caller's thread, which releases it when it makes its next future or destroys the owner.

#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <rmq/detail/util/plain_failure.hpp>

namespace rmq::detail {

class CallerFutures {
    /// Holds on shared states given up by completing threads, until a caller's thread releases them.
    class Retired {
    public:
        void retire(std::shared_ptr<void> held) {
            const std::lock_guard lock(mutex_);
            held_.push_back(std::move(held));
        }

        void release() {
            std::vector<std::shared_ptr<void>> old;
            const std::lock_guard lock(mutex_);
            old.swap(held_);
        }

    private:
        std::mutex mutex_;
        std::vector<std::shared_ptr<void>> held_;
    };

public:
    /// What the completing thread fulfils, once, from any thread. Copyable (for std::function): the copies
    /// share one hold on the promise, which the first to complete gives up.
    template <class T>
    class Completion {
        struct Hold {
            std::shared_ptr<std::promise<T>> promise;
            std::shared_ptr<Retired> retired;
        };

    public:
        Completion(std::shared_ptr<std::promise<T>> promise, std::shared_ptr<Retired> retired)
            : hold_(std::make_shared<Hold>(Hold{std::move(promise), std::move(retired)})) {}

        template <class... V>
        void set_value(V&&... value) {
            if (auto promise = std::exchange(hold_->promise, nullptr)) {
                promise->set_value(std::forward<V>(value)...);
                hold_->retired->retire(std::move(promise));
            }
        }

        /// A type of rmq/error.hpp is stored as a new exception; any other (a user's selector threw it) as
        /// it is, as it cannot be copied.
        void set_exception(const std::exception_ptr& error) {
            if (auto promise = std::exchange(hold_->promise, nullptr)) {
                const auto plain = PlainFailure::of(error, "failed with an unknown error");
                promise->set_exception(plain.exact() ? plain.fresh() : error);
                hold_->retired->retire(std::move(promise));
            }
        }

    private:
        std::shared_ptr<Hold> hold_;
    };

    /// A completion and its future; first releases what completing threads left (this is a caller's thread).
    template <class T>
    std::pair<Completion<T>, std::future<T>> make() {
        retired_->release();
        auto promise = std::make_shared<std::promise<T>>();
        auto future = promise->get_future();
        return {Completion<T>(std::move(promise), retired_), std::move(future)};
    }

private:
    // Shared with the completions: one outliving its owner retires into it without a dangling reference.
    std::shared_ptr<Retired> retired_ = std::make_shared<Retired>();
};

}  // namespace rmq::detail
