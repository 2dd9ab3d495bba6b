#pragma once

/// @file detail/net/client.hpp
/// The remoting client under rmq::RemotingTransport (Java's NettyRemotingClient): one io thread, one shared
/// connection per address, synchronous / asynchronous / oneway invocation, ACL signing of every request,
/// dispatch of broker-initiated requests and delayed tasks on the io thread. Asio stays behind the pimpl
/// (impl/client.ipp).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <rmq/config.hpp>
#include <rmq/remoting/acl.hpp>
#include <rmq/remoting/command.hpp>

#include <rmq/detail/net/connection.hpp>
#include <rmq/detail/net/options.hpp>

namespace rmq::detail {

/// Owns the io thread and the connections. Thread-safe. Destroying it closes every connection (pending
/// requests fail with rmq::Error) and joins the io thread; it must not be destroyed on that thread.
class RemotingClient {
public:
    /// With `options.tls.enable`, every connection is TLS; throws rmq::TlsError (or rmq::InvalidArgument)
    /// when the certificate files cannot be used.
    explicit RemotingClient(ConnectionOptions options,
                            std::optional<remoting::AclCredentials> credentials = std::nullopt);

    RemotingClient(const RemotingClient&) = delete;
    RemotingClient& operator=(const RemotingClient&) = delete;

    ~RemotingClient();

    /// Sets the handler for requests peers send (before the first connection is made).
    void set_request_handler(RequestHandler handler);

    /// Sets the hook run after each (re)connect (before the first connection is made).
    void set_connect_hook(ConnectHook hook);

    /// Sets the hook told of connection loss and recovery (before the first connection is made).
    void set_connection_event_hook(ConnectionEventHook hook);

    /// Whether the caller runs on the io thread (where blocking calls would deadlock).
    [[nodiscard]] bool on_io_thread() const noexcept;

    /// Asynchronous two-way request: `callback` gets the response, rmq::Timeout after `timeout_millis`, or
    /// rmq::Error when the connection fails. The request is signed first; throws rmq::remoting::CodecError
    /// (nothing is sent) when the frame cannot be encoded, e.g. above 16 MiB.
    void invoke_async(const std::string& addr,
                      remoting::Command cmd,
                      std::int64_t timeout_millis,
                      RemotingCallback callback);

    /// Blocking two-way request: the response (whatever its code), or throws rmq::Timeout / rmq::TlsError
    /// (the TLS handshake failed) / rmq::Error. Refused (rmq::IllegalState) on the io thread.
    remoting::Command
    invoke_sync(const std::string& addr, remoting::Command cmd, std::int64_t timeout_millis);

    /// Oneway request (flag bit 1); the request is signed first. Failures are only logged. When
    /// ConnectionOptions::client_oneway_semaphore_value oneway frames wait to be written, waits up to
    /// `wait_millis` for one to go, then throws rmq::Timeout (Java's semaphoreOneway).
    void invoke_oneway(const std::string& addr, remoting::Command cmd, std::int64_t wait_millis = 3000);

    /// Runs `task` on the io thread after `delay_millis` (never, once the client is shut down).
    void run_after(std::int64_t delay_millis, std::function<void()> task);

    /// Closes the connection to `addr` (the next request opens a new one).
    void close_connection(const std::string& addr);

    /// Closes every connection and stops the io thread. Idempotent.
    void shutdown();

    [[nodiscard]] const ConnectionOptions& options() const noexcept;

private:
    struct Impl;

    std::shared_ptr<RemotingConnection> connection(const std::string& addr);
    void sign(remoting::Command& cmd) const;

    std::unique_ptr<Impl> impl_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/net/impl/client.ipp>
#endif
