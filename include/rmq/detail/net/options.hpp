#pragma once

/// @file detail/net/options.hpp
/// What the connection layer is configured with and calls back: connection options, the completion of a
/// request, the handler of requests a peer sends, the hook run after a reconnect and the one told of
/// connection loss and recovery. No Asio here.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/tls_config.hpp>

namespace rmq::detail {

/// Completion of a two-way request: exactly one of `response` and `error` is set. Runs on the io thread
/// (or, when the connection is already closed, on the caller's thread).
using RemotingCallback =
    std::function<void(std::optional<remoting::Command> response, std::exception_ptr error)>;

/// Sends the answer to a peer's request later, from any thread, at most once (opaque, flag and serialization
/// are filled in). Dropped when the connection it came on is gone.
using Responder = std::function<void(remoting::Command answer)>;

/// A request handler's reply: `answer` now; nothing ("not supported"); or `later`: the handler keeps the
/// Responder it was given and answers through it (work that must not hold up the io thread).
struct RequestReply {
    std::optional<remoting::Command> answer;
    bool later = false;
};

/// Handles a request the peer sent. Runs on the io thread; the answer to a oneway request is discarded.
using RequestHandler =
    std::function<RequestReply(const std::string& addr, const remoting::Command& request, Responder respond)>;

/// Called on the io thread after each successful reconnect (not the first connect); the requests it
/// returns are written before anything queued (e.g. the heartbeats a broker must see again before a pull:
/// it forgot the client when the old channel closed). Their answers are ignored.
using ConnectHook = std::function<std::vector<remoting::Command>(const std::string& addr)>;

/// Called on the io thread when an established connection is lost (`connected` false: the peer closed it, a
/// read or write failed; not when the client closes it) and when a later connect succeeds (`connected` true).
using ConnectionEventHook = std::function<void(const std::string& addr, bool connected)>;

/// How a connection behaves (copied from rmq::RemotingConfig).
struct ConnectionOptions {
    std::int64_t connect_timeout_millis = 3000;
    remoting::SerializeType serialize_type = remoting::SerializeType::Json;
    /// Frames announced above this are refused (the connection is closed), as Java's decoder does.
    std::size_t max_frame_length = remoting::max_frame_length;
    /// TLS settings; `tls.enable` makes every connection TLS.
    TlsConfig tls{};
    /// Namespace v2: the `nsd` and `ns` ext fields of every request (empty: none).
    std::string namespace_v2{};
    /// Oneway requests not yet written, at most (RemotingConfig::client_oneway_semaphore_value).
    std::int32_t client_oneway_semaphore_value = 65535;
};

/// Request ids: a process-wide counter like Java's RemotingCommand.requestId, kept non-negative as the C++
/// client does (ids are only compared for equality, wrap-around is harmless).
std::int32_t next_opaque() noexcept;

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/net/impl/options.ipp>
#endif
