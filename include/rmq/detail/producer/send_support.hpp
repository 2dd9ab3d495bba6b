#pragma once

/// @file detail/producer/send_support.hpp
/// What rmq::Producer's sends share: Java's refused topics and retryable codes, the asynchronous sender's
/// thread count, and the completions (SendDone) of asynchronous, future and oneway sends.

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/log.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/util/caller_futures.hpp>

namespace rmq::detail {

/// TopicValidator.NOT_ALLOWED_SEND_TOPIC_SET.
inline constexpr std::array<std::string_view, 6> not_allowed_send_topics{
    "SCHEDULE_TOPIC_XXXX",
    "RMQ_SYS_TRANS_HALF_TOPIC",
    "RMQ_SYS_TRANS_OP_HALF_TOPIC",
    "TRANS_CHECK_MAX_TIME_TOPIC",
    "SELF_TEST_TOPIC",
    "OFFSET_MOVED_EVENT",
};

/// Threads of a producer's AsyncSender.
inline std::size_t async_thread_count(std::int32_t configured) {
    if (configured > 0) {
        return static_cast<std::size_t>(configured);
    }
    return std::max<std::size_t>(2, std::thread::hardware_concurrency());
}

/// MQClientException codes for which sendDefaultImpl tries the next queue (4.9.8).
inline bool retryable_send_code(int code) noexcept {
    return code == response_code::topic_not_exist || code == 14 /* SERVICE_NOT_AVAILABLE */ ||
           code == response_code::system_error || code == response_code::no_permission ||
           code == 204 /* NO_BUYER_ID */ || code == 205 /* NOT_IN_CURRENT_UNIT */;
}

/// What sendDefaultImpl does after an attempt failed with `error`.
enum class AfterFailure {
    Retry,                 ///< the next queue (a transport error, a timeout)
    RetryAfterRouteReset,  ///< the next queue, the topic's route read again (a retryable broker code)
    Stop,                  ///< give up with this error
};

inline AfterFailure after_failure(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const BrokerError& e) {
        return retryable_send_code(e.code()) ? AfterFailure::RetryAfterRouteReset : AfterFailure::Stop;
    } catch (const InvalidArgument&) {
        return AfterFailure::Stop;
    } catch (const UnsupportedByBroker&) {
        return AfterFailure::Stop;
    } catch (const Error&) {
        return AfterFailure::Retry;
    } catch (...) {
        return AfterFailure::Stop;
    }
}

/// What a finished asynchronous send calls: the result, or the exception of its last attempt.
using SendDone = std::function<void(SendResult, std::exception_ptr)>;

/// A SendDone calling the user's callbacks; what they throw is logged (it must not kill a producer thread).
template <class OnSuccess, class OnException>
SendDone done_calling(OnSuccess on_success, OnException on_exception) {
    auto both =
        std::make_shared<std::pair<OnSuccess, OnException>>(std::move(on_success), std::move(on_exception));
    return [both](SendResult r, const std::exception_ptr& e) {
        try {
            if (e) {
                std::invoke(both->second, e);
            } else {
                std::invoke(both->first, std::move(r));
            }
        } catch (const std::exception& ex) {
            log_message(LogLevel::Warn, fmt::format("a send callback threw: {}", ex.what()));
        } catch (...) {
            log_message(LogLevel::Warn, "a send callback threw a non-standard exception");
        }
    };
}

/// A SendDone completing a future of `futures` (made on this, the caller's, thread), and the future.
inline std::pair<SendDone, std::future<SendResult>> promised_done(CallerFutures& futures) {
    auto [completion, future] = futures.make<SendResult>();
    return {[completion = std::move(completion)](SendResult r, const std::exception_ptr& e) mutable {
                if (e) {
                    completion.set_exception(e);
                } else {
                    completion.set_value(std::move(r));
                }
            },
            std::move(future)};
}

/// A oneway send's SendDone: its failure is logged (nobody waits for it).
inline SendDone oneway_done(std::string topic) {
    return [topic = std::move(topic)](const SendResult&, const std::exception_ptr& e) {
        if (!e) {
            return;
        }
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& ex) {
            log_message(LogLevel::Warn, fmt::format("oneway send to topic {} failed: {}", topic, ex.what()));
        } catch (...) {
            log_message(LogLevel::Warn, fmt::format("oneway send to topic {} failed", topic));
        }
    };
}

}  // namespace rmq::detail
