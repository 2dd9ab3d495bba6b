#pragma once

/// @file detail/remoting_transport/caller.hpp
/// How the transport's operations call a peer: synchronous requests with SYSTEM_BUSY retried, several
/// requests at once, and the checks that turn an answer into an rmq error.

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/transport/remoting_config.hpp>

#include <rmq/detail/net/client.hpp>

namespace rmq::detail {

/// A fresh exception per waiter: the connection shares one exception_ptr among all its pending requests,
/// and releasing it on two threads races in libstdc++'s uninstrumented refcount (ThreadSanitizer). Made by
/// PlainFailure: the same type (rmq/error.hpp's), message and fields; anything else as rmq::Error.
std::exception_ptr fresh_exception(const std::exception_ptr& e);

/// Sends requests through the client with the transport's timeouts and retry policy. Thread-safe.
class RemotingCaller {
public:
    /// The answer of one of several requests sent at once, or why it failed.
    using CallResult = std::variant<remoting::Command, std::exception_ptr>;
    /// (address, request) pairs, and (address, result) pairs.
    using Calls = std::vector<std::pair<std::string, remoting::Command>>;
    using Results = std::vector<std::pair<std::string, CallResult>>;

    RemotingCaller(RemotingClient& client, const RemotingConfig& config) noexcept
        : client_(client)
        , config_(config) {}

    /// A synchronous request; SYSTEM_BUSY answers are retried with doubling back-off from 50 ms (capped at 1
    /// s).
    remoting::Command call(const std::string& addr, const remoting::Command& req, std::int64_t timeout);

    /// call() with the api timeout (mq_client_api_timeout).
    remoting::Command call(const std::string& addr, const remoting::Command& req) {
        return call(addr, req, config_.mq_client_api_timeout);
    }

    /// Sends every request at once and waits for all (rmq::IllegalState on the io thread).
    Results call_all(const Calls& calls, std::int64_t timeout);

    /// rmq::BrokerError (rmq::AccessDenied for NO_PERMISSION) unless `resp` is SUCCESS.
    static void check_success(const remoting::Command& resp, const std::string& what);

    /// Throws for the first failed call or non-SUCCESS answer, naming its address.
    static void throw_first_failure(const Results& results, std::string_view what);

    /// The MQVersion code of the last answer call() got from `addr` (nullopt before the first one): what
    /// tells a 4.x broker from a 5.x one.
    [[nodiscard]] std::optional<std::int32_t> peer_version(const std::string& addr) const {
        const std::lock_guard lock(versions_mutex_);
        if (const auto it = versions_.find(addr); it != versions_.end()) {
            return it->second;
        }
        return std::nullopt;
    }

    RemotingClient& client() noexcept { return client_; }

    [[nodiscard]] const RemotingConfig& config() const noexcept { return config_; }

private:
    RemotingClient& client_;
    const RemotingConfig& config_;
    mutable std::mutex versions_mutex_;
    std::map<std::string, std::int32_t, std::less<>> versions_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/caller.ipp>
#endif
