#pragma once

/// @file detail/remoting_client.hpp
/// The remoting client under rmq::RemotingTransport (Java's NettyRemotingClient): one io_context thread, one
/// shared connection per address, synchronous / asynchronous / oneway invocation, ACL signing of every
/// request and dispatch of broker-initiated requests.

#include <cstdint>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/remoting/acl.hpp>
#include <rmq/remoting/command.hpp>

#include <rmq/detail/consumer_log.hpp>
#include <rmq/detail/remoting_connection.hpp>

namespace rmq::detail {

/// Owns the io thread and the connections. Thread-safe. Destroying it closes every connection (pending
/// requests fail with rmq::Error) and joins the io thread; it must not be destroyed on that thread.
class RemotingClient {
public:
    using RequestHandler = RemotingConnection::RequestHandler;
    using ConnectHook = RemotingConnection::ConnectHook;

    explicit RemotingClient(ConnectionOptions options,
                            std::optional<remoting::AclCredentials> credentials = std::nullopt)
        : options_(options)
        , credentials_(std::move(credentials))
        , work_(asio::make_work_guard(io_)) {
        thread_ = std::thread([this] {
            for (;;) {
                try {
                    io_.run();
                    return;
                } catch (const std::exception& e) {
                    log_line("remoting io thread: handler threw: {}", e.what());
                }
            }
        });
    }

    RemotingClient(const RemotingClient&) = delete;
    RemotingClient& operator=(const RemotingClient&) = delete;

    ~RemotingClient() { shutdown(); }

    /// Sets the handler for requests peers send (before the first connection is made).
    void set_request_handler(RequestHandler handler) {
        const std::lock_guard lock(mutex_);
        on_request_ = std::move(handler);
    }

    /// Sets the hook run after each (re)connect (before the first connection is made).
    void set_connect_hook(ConnectHook hook) {
        const std::lock_guard lock(mutex_);
        on_connect_ = std::move(hook);
    }

    /// Whether the caller runs on the io thread (where blocking calls would deadlock).
    [[nodiscard]] bool on_io_thread() const noexcept {
        return std::this_thread::get_id() == thread_.get_id();
    }

    /// The shared connection to `addr`, created on first use (it connects lazily).
    std::shared_ptr<RemotingConnection> connection(const std::string& addr) {
        const std::lock_guard lock(mutex_);
        if (stopped_) {
            throw IllegalState(fmt::format("remoting client is shut down (request to {})", addr));
        }
        auto& slot = connections_[addr];
        if (!slot) {
            slot = std::make_shared<RemotingConnection>(
                io_,
                addr,
                options_,
                [this](const std::string& a,
                       const remoting::Command& req) -> std::optional<remoting::Command> {
                    RequestHandler h;
                    {
                        const std::lock_guard l(mutex_);
                        h = on_request_;
                    }
                    return h ? h(a, req) : std::nullopt;
                },
                [this](const std::string& a) -> std::vector<remoting::Command> {
                    ConnectHook h;
                    {
                        const std::lock_guard l(mutex_);
                        h = on_connect_;
                    }
                    auto cmds = h ? h(a) : std::vector<remoting::Command>{};
                    for (auto& c : cmds) {
                        sign(c);
                    }
                    return cmds;
                });
        }
        return slot;
    }

    /// Asynchronous two-way request (see RemotingConnection::invoke_async); the request is signed first.
    void invoke_async(const std::string& addr,
                      remoting::Command cmd,
                      std::int64_t timeout_millis,
                      RemotingCallback callback) {
        sign(cmd);
        connection(addr)->invoke_async(std::move(cmd), timeout_millis, std::move(callback));
    }

    /// Blocking two-way request: the response (whatever its code), or throws rmq::Timeout / rmq::Error.
    /// Refused (rmq::IllegalState) on the io thread.
    remoting::Command
    invoke_sync(const std::string& addr, remoting::Command cmd, std::int64_t timeout_millis) {
        if (on_io_thread()) {
            throw IllegalState("blocking remoting call on the remoting io thread");
        }

        // The failure crosses threads as plain data and is re-thrown fresh here: an exception_ptr released on
        // both threads races in libstdc++'s uninstrumented refcount (a ThreadSanitizer report, and one copy
        // of the exception object shared by every pending request of a failed connection).
        struct Failure {
            bool timeout = false;
            std::string what;
        };

        using Result = std::variant<remoting::Command, Failure>;
        auto promise = std::make_shared<std::promise<Result>>();
        auto future = promise->get_future();
        invoke_async(addr,
                     std::move(cmd),
                     timeout_millis,
                     [promise](std::optional<remoting::Command> response, std::exception_ptr error) {
                         if (!error && response) {
                             promise->set_value(Result(std::move(*response)));
                             return;
                         }
                         Failure failure{false, "remoting request failed without a response"};
                         if (error) {
                             try {
                                 std::rethrow_exception(error);
                             } catch (const Timeout& e) {
                                 failure = Failure{true, e.what()};
                             } catch (const std::exception& e) {
                                 failure = Failure{false, e.what()};
                             } catch (...) {
                                 failure = Failure{false, "remoting request failed with an unknown error"};
                             }
                         }
                         promise->set_value(Result(std::move(failure)));
                     });
        Result result = future.get();
        if (auto* failure = std::get_if<Failure>(&result)) {
            if (failure->timeout) {
                throw Timeout(failure->what);
            }
            throw Error(failure->what);
        }
        return std::get<remoting::Command>(std::move(result));
    }

    /// Oneway request (flag bit 1); the request is signed first.
    void invoke_oneway(const std::string& addr, remoting::Command cmd) {
        sign(cmd);
        connection(addr)->invoke_oneway(std::move(cmd));
    }

    /// Closes the connection to `addr` (the next request opens a new one).
    void close_connection(const std::string& addr) {
        std::shared_ptr<RemotingConnection> c;
        {
            const std::lock_guard lock(mutex_);
            if (auto it = connections_.find(addr); it != connections_.end()) {
                c = std::move(it->second);
                connections_.erase(it);
            }
        }
        if (c) {
            c->close();
        }
    }

    /// Closes every connection and stops the io thread. Idempotent.
    void shutdown() {
        std::map<std::string, std::shared_ptr<RemotingConnection>> conns;
        {
            const std::lock_guard lock(mutex_);
            if (stopped_) {
                return;
            }
            stopped_ = true;
            conns.swap(connections_);
        }
        for (auto& [addr, c] : conns) {
            c->close();
        }
        // after the closes above (FIFO): whatever still waits (timers of other owners) must not keep the
        // thread alive; every pending request was already failed by its connection's close
        asio::post(io_, [this] { io_.stop(); });
        work_.reset();
        if (thread_.joinable()) {
            if (on_io_thread()) {
                thread_.detach();  // cannot join ourselves; the context ends when its work does
            } else {
                thread_.join();
            }
        }
    }

    asio::io_context& io() noexcept { return io_; }

    [[nodiscard]] const ConnectionOptions& options() const noexcept { return options_; }

private:
    void sign(remoting::Command& cmd) const {
        if (credentials_) {
            remoting::acl_sign(cmd, *credentials_);
        }
    }

    const ConnectionOptions options_;
    const std::optional<remoting::AclCredentials> credentials_;
    asio::io_context io_{1};
    asio::executor_work_guard<asio::io_context::executor_type> work_;
    std::thread thread_;
    mutable std::mutex mutex_;
    bool stopped_ = false;
    std::map<std::string, std::shared_ptr<RemotingConnection>> connections_;
    RequestHandler on_request_;
    ConnectHook on_connect_;
};

}  // namespace rmq::detail
