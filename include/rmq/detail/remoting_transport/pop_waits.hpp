#pragma once

/// @file detail/remoting_transport/pop_waits.hpp
/// The POP requests callers wait for, by consumer group, so that interrupt_pops can end the waits of a
/// stopping consumer: a broker holds a POP for its poll time (15 s by Java's default) and the protocol has
/// no way to cut that short, so the wait ends on this side and the broker's late answer is dropped (its
/// messages come back after their invisible time, as when Java's client closes its channels).

#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include <rmq/config.hpp>
#include <rmq/remoting/command.hpp>

#include <rmq/detail/util/plain_failure.hpp>

namespace rmq::detail {

class PopWaits {
public:
    /// One request's wait: its answer (or error) or an interruption, whichever comes first.
    struct Wait {
        std::mutex mutex;
        std::condition_variable cv;
        std::optional<remoting::Command> answer;  // else the failure below
        // A failure crosses threads as plain data (as RemotingClient::invoke_sync's): an exception_ptr
        // released on both threads races in libstdc++'s uninstrumented refcount.
        std::optional<PlainFailure> failure;
        bool done = false;
        bool interrupted = false;
    };

    /// A wait for a request of `group` about to be sent; nullptr while the group is interrupted.
    std::shared_ptr<Wait> enter(const std::string& group);

    /// Forgets `wait` (its request answered or interrupted).
    void leave(const std::string& group, const std::shared_ptr<Wait>& wait);

    /// Ends every wait of `group` now and refuses new ones until resume(group).
    void interrupt(const std::string& group);

    void resume(const std::string& group);

    /// Whether `group` is interrupted (an asynchronous pop is then answered at once, nothing sent).
    [[nodiscard]] bool interrupted(const std::string& group);

    /// Completes `wait` with the broker's answer or the request's error (io thread).
    static void
    complete(Wait& wait, std::optional<remoting::Command> answer, const std::exception_ptr& error);

    /// Blocks until `wait` is completed or interrupted; true when completed.
    static bool await(Wait& wait);

    /// The completed `wait`'s answer; its failure thrown anew (PlainFailure::rethrow).
    static remoting::Command answer_of(Wait& wait);

private:
    std::mutex mutex_;
    std::set<std::string> interrupted_;
    std::multimap<std::string, std::shared_ptr<Wait>> waiting_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/pop_waits.ipp>
#endif
