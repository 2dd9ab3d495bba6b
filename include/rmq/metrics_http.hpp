#pragma once

/// @file metrics_http.hpp
/// rmq::MetricsHttpServer: an optional, minimal HTTP endpoint for Prometheus. `GET /metrics` answers the text
/// a callback builds (rmq::to_prometheus, rmq::PrometheusText), anything else a 4xx. One I/O thread, one
/// request per connection ("Connection: close"): a scrape every few seconds needs no more. It runs on
/// Boost.Asio, so it belongs to the TCP transport's umbrella <rmq/remoting.hpp>; the Asio part is in
/// detail/net/impl/metrics_http.ipp. See docs/metrics.md.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <rmq/config.hpp>

namespace rmq {

/// Where and what rmq::MetricsHttpServer serves.
struct MetricsHttpConfig {
    /// The address to listen on, an IPv4 or IPv6 literal. The default serves this machine only; "0.0.0.0" (or
    /// "::") lets a Prometheus server elsewhere scrape it, and anyone who can reach the port.
    std::string address = "127.0.0.1";
    /// The TCP port; 0 asks the system for a free one (MetricsHttpServer::port() tells which). 9464 is the
    /// port OpenTelemetry's Prometheus exporter uses.
    std::uint16_t port = 9464;
    /// The path answered with the metrics (a query string after it is ignored). Must start with '/'.
    std::string path = "/metrics";
};

/// Serves Prometheus text over HTTP/1.1 on its own I/O thread. `GET <path>` → 200 with Content-Type
/// rmq::prometheus_content_type and the callback's text; another method on the path → 405; another path →
/// 404; a request line that is not HTTP, or a request head over 8 KiB → 400; the callback throwing → 500
/// with the exception's text. A connection that sends no complete request within 10 s is closed.
///
/// @code
/// rmq::MetricsHttpServer server([&] { return rmq::to_prometheus(consumer.stats(), group,
/// consumer.client_id()); },
///                               rmq::MetricsHttpConfig{.port = 9464});
/// server.start();
/// @endcode
///
/// The callback runs on the server's thread, once per scrape; what it reads must outlive the server (stop or
/// destroy the server before the clients it reads). start(), stop() and port() are thread-safe.
class MetricsHttpServer {
public:
    /// Throws rmq::InvalidArgument for an empty callback, an address that is not an IP literal, or a path
    /// not starting with '/'. Nothing is bound until start().
    explicit MetricsHttpServer(std::function<std::string()> metrics, MetricsHttpConfig config = {});

    MetricsHttpServer(const MetricsHttpServer&) = delete;
    MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

    /// stop().
    ~MetricsHttpServer();

    /// Binds the address and port and starts serving. rmq::Error when they cannot be bound (in use, no
    /// permission; the text says which); rmq::IllegalState when already running. May be called again after
    /// stop().
    void start();

    /// Closes the listening socket and every connection and joins the I/O thread (a scrape in progress is
    /// cut short). Idempotent. Must not be called from the metrics callback.
    void stop();

    /// Whether start() succeeded and stop() has not been called since.
    [[nodiscard]] bool running() const;

    /// The bound port (the system's choice when the configured port is 0); 0 when not running.
    [[nodiscard]] std::uint16_t port() const;

    [[nodiscard]] const MetricsHttpConfig& config() const noexcept { return config_; }

private:
    struct Impl;

    std::function<std::string()> metrics_;
    MetricsHttpConfig config_;
    mutable std::mutex mutex_;  // guards impl_ (start/stop/port from any thread)
    std::unique_ptr<Impl> impl_;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/net/impl/metrics_http.ipp>
#endif
