#pragma once

#include <chrono>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/net/client.hpp>
#include <rmq/detail/net/impl/connection.ipp>
#include <rmq/detail/net/oneway_permits.hpp>
#include <rmq/detail/net/refusal.hpp>
#include <rmq/detail/util/log.hpp>
#include <rmq/detail/util/plain_failure.hpp>

namespace rmq::detail {

/// A broker refusing a signed request (NO_PERMISSION, or 4.x's AclException) says why ("check signature
/// failed.", "User:x is not found.", "... has no permission to access ...") but not always whose credentials:
/// the remark then names the access key the request was signed with. Never the secret key or the signature.
inline RemotingCallback naming_access_key(RemotingCallback callback, std::string access_key) {
    return [callback = std::move(callback), access_key = std::move(access_key)](
               std::optional<remoting::Command> response, std::exception_ptr error) {
        // No copy of the remark: this runs for every answer to a signed request, pulls included.
        if (response &&
            is_access_denied(response->code,
                             response->remark ? std::string_view(*response->remark) : std::string_view{})) {
            response->remark = fmt::format("{} (request signed with access key {})",
                                           response->remark.value_or("no permission"),
                                           access_key);
        }
        callback(std::move(response), std::move(error));
    };
}

/// What the client owns: the io context and its thread, the connections and the handlers they call.
struct RemotingClient::Impl {
    Impl(ConnectionOptions o, std::optional<remoting::AclCredentials> c)
        : options(std::move(o))
        , credentials(std::move(c))
        , tls_context(options.tls.enable ? make_tls_context(options.tls) : nullptr)
        , work(asio::make_work_guard(io)) {}

    const ConnectionOptions options;
    const std::optional<remoting::AclCredentials> credentials;
    const std::shared_ptr<OnewayPermits> oneway_permits =
        std::make_shared<OnewayPermits>(options.client_oneway_semaphore_value);
    /// Shared by every connection; null without TLS.
    const std::shared_ptr<asio::ssl::context> tls_context;
    asio::io_context io{1};
    asio::executor_work_guard<asio::io_context::executor_type> work;
    std::thread thread;
    mutable std::mutex mutex;
    bool stopped = false;
    std::map<std::string, std::shared_ptr<RemotingConnection>> connections;
    RequestHandler on_request;
    ConnectHook on_connect;
    ConnectionEventHook on_event;
};

RMQ_DECL RemotingClient::RemotingClient(ConnectionOptions options,
                                        std::optional<remoting::AclCredentials> credentials)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(credentials))) {
    impl_->thread = std::thread([impl = impl_.get()] {
        for (;;) {
            try {
                impl->io.run();
                return;
            } catch (const std::exception& e) {
                log_line(LogLevel::Error, "remoting io thread: handler threw: {}", e.what());
            }
        }
    });
}

RMQ_DECL RemotingClient::~RemotingClient() {
    shutdown();
}

RMQ_DECL void RemotingClient::set_request_handler(RequestHandler handler) {
    const std::lock_guard lock(impl_->mutex);
    impl_->on_request = std::move(handler);
}

RMQ_DECL void RemotingClient::set_connect_hook(ConnectHook hook) {
    const std::lock_guard lock(impl_->mutex);
    impl_->on_connect = std::move(hook);
}

RMQ_DECL void RemotingClient::set_connection_event_hook(ConnectionEventHook hook) {
    const std::lock_guard lock(impl_->mutex);
    impl_->on_event = std::move(hook);
}

RMQ_DECL bool RemotingClient::on_io_thread() const noexcept {
    return std::this_thread::get_id() == impl_->thread.get_id();
}

RMQ_DECL std::shared_ptr<RemotingConnection> RemotingClient::connection(const std::string& addr) {
    const std::lock_guard lock(impl_->mutex);
    if (impl_->stopped) {
        throw IllegalState(fmt::format("remoting client is shut down (request to {})", addr));
    }
    auto& slot = impl_->connections[addr];
    if (slot) {
        return slot;
    }
    auto on_request = [this](const std::string& a, const remoting::Command& req, Responder respond) {
        RequestHandler h;
        {
            const std::lock_guard l(impl_->mutex);
            h = impl_->on_request;
        }
        return h ? h(a, req, std::move(respond)) : RequestReply{};
    };
    auto on_connect = [this](const std::string& a) -> std::vector<remoting::Command> {
        ConnectHook h;
        {
            const std::lock_guard l(impl_->mutex);
            h = impl_->on_connect;
        }
        auto cmds = h ? h(a) : std::vector<remoting::Command>{};
        for (auto& c : cmds) {
            sign(c);
        }
        return cmds;
    };
    auto on_event = [this](const std::string& a, bool connected) {
        ConnectionEventHook h;
        {
            const std::lock_guard l(impl_->mutex);
            h = impl_->on_event;
        }
        if (h) {
            h(a, connected);
        }
    };
    slot = std::make_shared<RemotingConnection>(impl_->io,
                                                addr,
                                                impl_->options,
                                                std::move(on_request),
                                                std::move(on_connect),
                                                std::move(on_event),
                                                impl_->tls_context);
    return slot;
}

RMQ_DECL void RemotingClient::invoke_async(const std::string& addr,
                                           remoting::Command cmd,
                                           std::int64_t timeout_millis,
                                           RemotingCallback callback) {
    sign(cmd);
    if (impl_->credentials) {
        callback = naming_access_key(std::move(callback), impl_->credentials->access_key);
    }
    connection(addr)->invoke_async(std::move(cmd), timeout_millis, std::move(callback));
}

RMQ_DECL remoting::Command
RemotingClient::invoke_sync(const std::string& addr, remoting::Command cmd, std::int64_t timeout_millis) {
    if (on_io_thread()) {
        throw IllegalState("blocking remoting call on the remoting io thread");
    }

    // The failure crosses threads as plain data and is re-thrown fresh here: an exception_ptr released on
    // both threads races in libstdc++'s uninstrumented refcount (a ThreadSanitizer report, and one copy of
    // the exception object shared by every pending request of a failed connection).
    using Result = std::variant<remoting::Command, PlainFailure>;
    auto promise = std::make_shared<std::promise<Result>>();
    auto future = promise->get_future();
    invoke_async(
        addr,
        std::move(cmd),
        timeout_millis,
        [promise](std::optional<remoting::Command> response, const std::exception_ptr& error) {
            if (!error && response) {
                promise->set_value(Result(std::move(*response)));
            } else if (error) {
                promise->set_value(
                    Result(PlainFailure::of(error, "remoting request failed with an unknown error")));
            } else {
                promise->set_value(Result(PlainFailure::other("remoting request failed without a response")));
            }
        });
    Result result = future.get();
    if (const auto* failure = std::get_if<PlainFailure>(&result)) {
        failure->rethrow();
    }
    return std::get<remoting::Command>(std::move(result));
}

RMQ_DECL void
RemotingClient::invoke_oneway(const std::string& addr, remoting::Command cmd, std::int64_t wait_millis) {
    sign(cmd);
    // On the io thread a wait could only end in the timeout: the frames it waits for are written there.
    auto permit = impl_->oneway_permits->acquire(on_io_thread() ? 0 : wait_millis);
    connection(addr)->invoke_oneway(std::move(cmd), std::move(permit));
}

RMQ_DECL void RemotingClient::run_after(std::int64_t delay_millis, std::function<void()> task) {
    // The pending wait owns the timer: if the client stops first, destroying the io context destroys both.
    auto timer = std::make_shared<asio::steady_timer>(impl_->io, std::chrono::milliseconds(delay_millis));
    timer->async_wait([timer, task = std::move(task)](const boost::system::error_code& ec) {
        if (!ec) {
            task();
        }
    });
}

RMQ_DECL void RemotingClient::close_connection(const std::string& addr) {
    std::shared_ptr<RemotingConnection> c;
    {
        const std::lock_guard lock(impl_->mutex);
        if (auto it = impl_->connections.find(addr); it != impl_->connections.end()) {
            c = std::move(it->second);
            impl_->connections.erase(it);
        }
    }
    if (c) {
        c->close();
    }
}

RMQ_DECL void RemotingClient::shutdown() {
    std::map<std::string, std::shared_ptr<RemotingConnection>> conns;
    {
        const std::lock_guard lock(impl_->mutex);
        if (impl_->stopped) {
            return;
        }
        impl_->stopped = true;
        conns.swap(impl_->connections);
    }
    for (auto& [addr, c] : conns) {
        c->close();
    }
    // after the closes above (FIFO): whatever still waits (timers of other owners) must not keep the thread
    // alive; every pending request was already failed by its connection's close
    asio::post(impl_->io, [impl = impl_.get()] { impl->io.stop(); });
    impl_->work.reset();
    if (impl_->thread.joinable()) {
        if (on_io_thread()) {
            impl_->thread.detach();  // cannot join ourselves; the context ends when its work does
        } else {
            impl_->thread.join();
        }
    }
}

RMQ_DECL const ConnectionOptions& RemotingClient::options() const noexcept {
    return impl_->options;
}

/// Java's NamespaceRpcHook runs before the ACL hook: the signature covers the namespace fields.
RMQ_DECL void RemotingClient::sign(remoting::Command& cmd) const {
    if (const std::string& ns = options().namespace_v2; !ns.empty()) {
        cmd.fields().set("nsd", "true");
        cmd.fields().set("ns", ns);
    }
    if (impl_->credentials) {
        remoting::acl_sign(cmd, *impl_->credentials);
    }
}

}  // namespace rmq::detail
