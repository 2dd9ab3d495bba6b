#pragma once

/// @file detail/util/plain_failure.hpp
/// A failure as plain data, to hand it from one thread to another: an exception_ptr shares one exception
/// object between the threads that hold it, and libstdc++ counts those holds where ThreadSanitizer cannot
/// see it, so the object released on one thread while the other reads it is reported as a race. What a
/// PlainFailure rethrows is a new exception, made on the thread that rethrows it.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>

namespace rmq::detail {

class PlainFailure {
public:
    /// The exception types of rmq/error.hpp, each rethrown as itself; Other is anything else.
    enum class Kind {
        Error,
        InvalidArgument,
        IllegalState,
        BrokerError,
        AccessDenied,
        TlsError,
        CodecError,
        Timeout,
        MessageTooLarge,
        InvalidBatch,
        TimerRejected,
        UnsupportedByBroker,
        PopUnsupported,
        PartialAckError,
        TooManyRequests,
        Other,
    };

    /// `error` (not null) as plain data: its type, what() and fields (a PartialAckError's errors each as a
    /// PlainFailure). `unknown` is the message of an exception not derived from std::exception.
    static PlainFailure of(const std::exception_ptr& error, std::string_view unknown);

    /// A failure without an exception (a request answered by nothing): rethrown as rmq::Error(what).
    static PlainFailure other(std::string what);

    [[nodiscard]] Kind kind() const noexcept { return kind_; }

    [[nodiscard]] const std::string& what() const noexcept { return what_; }

    /// Whether rethrow() throws the original's type: false for Other (a type outside rmq/error.hpp, or one
    /// derived from them elsewhere), which is rethrown as rmq::Error with its what().
    [[nodiscard]] bool exact() const noexcept { return kind_ != Kind::Other; }

    /// Throws a new exception of the original's type, message and fields.
    [[noreturn]] void rethrow() const;

    /// What rethrow() throws, as an exception_ptr (made on this thread).
    [[nodiscard]] std::exception_ptr fresh() const;

private:
    void take(const std::exception& e);

    Kind kind_ = Kind::Other;
    std::string what_;
    std::int64_t number_ = 0;  // code(), size() or broker_version()
    std::size_t limit_ = 0;    // MessageTooLarge::limit()
    std::vector<std::size_t> failed_;
    std::vector<PlainFailure> errors_;  // PartialAckError::errors()
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/util/impl/plain_failure.ipp>
#endif
