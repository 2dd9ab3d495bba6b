#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/metrics.hpp>
#include <rmq/metrics_http.hpp>

namespace rmq {

namespace detail::metrics_http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

/// A request head larger than this is refused (400): a scrape's request line and headers are a few hundred
/// bytes, and the limit keeps a client from growing the buffer without bound.
inline constexpr std::size_t max_request_head = 8192;
/// A connection that has not sent a whole request head by then is closed, so idle clients hold no socket.
inline constexpr std::chrono::seconds request_timeout{10};

inline std::string response(std::string_view status, std::string_view content_type, std::string_view body) {
    return fmt::format("HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                       status,
                       content_type,
                       body.size(),
                       body);
}

/// The answer to one request head's first line.
inline std::string respond(const std::string& method,
                           const std::string& target,
                           const std::string& version,
                           const std::string& path,
                           const std::function<std::string()>& metrics) {
    if (method.empty() || target.empty() || target.front() != '/' || !version.starts_with("HTTP/1.")) {
        return response("400 Bad Request", "text/plain; charset=utf-8", "bad request\n");
    }
    const std::string_view t(target);
    if (t.substr(0, t.find('?')) != path) {
        return response("404 Not Found", "text/plain; charset=utf-8", "not found\n");
    }
    if (method != "GET") {
        return fmt::format("HTTP/1.1 405 Method Not Allowed\r\nAllow: GET\r\nContent-Length: "
                           "0\r\nConnection: close\r\n\r\n");
    }
    try {
        return response("200 OK", prometheus_content_type, metrics());
    } catch (const std::exception& e) {
        return response("500 Internal Server Error", "text/plain; charset=utf-8", e.what());
    }
}

struct Connection {
    explicit Connection(asio::io_context& io)
        : socket(io)
        , deadline(io) {}

    tcp::socket socket;
    asio::steady_timer deadline;
    asio::streambuf request{max_request_head};
    std::string answer;
};

}  // namespace detail::metrics_http

/// The listening socket, its I/O thread and the connections; exists while running.
struct MetricsHttpServer::Impl {
    Impl(const MetricsHttpConfig& c,
         const std::function<std::string()>& m,
         const detail::metrics_http::tcp::endpoint& at)
        : config(c)
        , metrics(m)
        , acceptor(io) {
        namespace asio = detail::metrics_http::asio;
        boost::system::error_code ec;
        acceptor.open(at.protocol(), ec);
        if (!ec) {
            acceptor.set_option(asio::socket_base::reuse_address(true), ec);
        }
        if (!ec) {
            acceptor.bind(at, ec);
        }
        if (!ec) {
            acceptor.listen(asio::socket_base::max_listen_connections, ec);
        }
        if (ec) {
            throw Error(fmt::format(
                "metrics HTTP server: cannot listen on {}:{}: {}", c.address, c.port, ec.message()));
        }
        bound_port = acceptor.local_endpoint().port();
        accept();
        thread = std::thread([this] { io.run(); });
    }

    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    ~Impl() {
        io.stop();
        if (thread.joinable()) {
            thread.join();
        }
    }

    void accept() {
        auto c = std::make_shared<detail::metrics_http::Connection>(io);
        acceptor.async_accept(c->socket, [this, c](const boost::system::error_code& ec) {
            if (ec == detail::metrics_http::asio::error::operation_aborted) {
                return;
            }
            if (!ec) {
                read(c);
            }
            accept();
        });
    }

    void read(const std::shared_ptr<detail::metrics_http::Connection>& c) {
        namespace asio = detail::metrics_http::asio;
        c->deadline.expires_after(detail::metrics_http::request_timeout);
        c->deadline.async_wait([c](const boost::system::error_code& ec) {
            if (!ec) {
                boost::system::error_code ignored;
                c->socket.close(ignored);
            }
        });
        asio::async_read_until(
            c->socket, c->request, "\r\n\r\n", [this, c](const boost::system::error_code& ec, std::size_t) {
                c->deadline.cancel();
                if (ec && ec != asio::error::not_found) {
                    return;  // closed, reset or timed out: nobody to answer
                }
                std::string method;
                std::string target;
                std::string version;
                if (!ec) {
                    std::istream in(&c->request);
                    in >> method >> target >> version;
                }
                // not_found: the head outgrew max_request_head; the empty fields answer 400.
                c->answer = detail::metrics_http::respond(method, target, version, config.path, metrics);
                asio::async_write(
                    c->socket, asio::buffer(c->answer), [c](const boost::system::error_code&, std::size_t) {
                        boost::system::error_code ignored;
                        c->socket.shutdown(detail::metrics_http::tcp::socket::shutdown_both, ignored);
                    });
            });
    }

    const MetricsHttpConfig& config;
    const std::function<std::string()>& metrics;
    detail::metrics_http::asio::io_context io;
    detail::metrics_http::tcp::acceptor acceptor;
    std::uint16_t bound_port = 0;
    std::thread thread;
};

RMQ_DECL MetricsHttpServer::MetricsHttpServer(std::function<std::string()> metrics, MetricsHttpConfig config)
    : metrics_(std::move(metrics))
    , config_(std::move(config)) {
    if (!metrics_) {
        throw InvalidArgument("metrics HTTP server: the metrics callback is empty");
    }
    boost::system::error_code ec;
    (void)boost::asio::ip::make_address(config_.address, ec);
    if (ec) {
        throw InvalidArgument(
            fmt::format("metrics HTTP server: address '{}' is not an IPv4 or IPv6 literal", config_.address));
    }
    if (!config_.path.starts_with('/')) {
        throw InvalidArgument(
            fmt::format("metrics HTTP server: path '{}' does not start with '/'", config_.path));
    }
}

RMQ_DECL MetricsHttpServer::~MetricsHttpServer() {
    stop();
}

RMQ_DECL void MetricsHttpServer::start() {
    const std::lock_guard lock(mutex_);
    if (impl_) {
        throw IllegalState("metrics HTTP server: start() called while running");
    }
    const detail::metrics_http::tcp::endpoint at(boost::asio::ip::make_address(config_.address),
                                                 config_.port);
    impl_ = std::make_unique<Impl>(config_, metrics_, at);
}

RMQ_DECL void MetricsHttpServer::stop() {
    std::unique_ptr<Impl> impl;
    {
        const std::lock_guard lock(mutex_);
        impl = std::move(impl_);
    }
    impl.reset();  // joins the I/O thread outside the lock: port() stays callable meanwhile
}

RMQ_DECL bool MetricsHttpServer::running() const {
    const std::lock_guard lock(mutex_);
    return impl_ != nullptr;
}

RMQ_DECL std::uint16_t MetricsHttpServer::port() const {
    const std::lock_guard lock(mutex_);
    return impl_ ? impl_->bound_port : 0;
}

}  // namespace rmq
