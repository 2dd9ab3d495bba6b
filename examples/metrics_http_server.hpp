#pragma once

// A minimal HTTP endpoint for Prometheus on a plain Boost.Asio socket: GET /metrics answers the text a
// callback builds (e.g. rmq::PrometheusText over a consumer's and a producer's stats()), anything else 404.
// One I/O thread, one request per connection ("Connection: close"): a scrape every few seconds needs no more.
// examples/metrics_http.cpp serves it; tests/unit/metrics scrape it. Not part of rmq's headers: rmq exports
// the text (rmq/metrics.hpp), the application picks its HTTP server.

#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <boost/asio.hpp>
#include <fmt/format.h>

#include <rmq/metrics.hpp>

namespace metrics_http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

class Server {
public:
    /// Listens on `address`:`port` (0: an ephemeral port, see port()) and serves until destroyed.
    explicit Server(std::function<std::string()> metrics,
                    std::uint16_t port = 0,
                    const std::string& address = "127.0.0.1")
        : metrics_(std::move(metrics))
        , acceptor_(io_, tcp::endpoint(asio::ip::make_address(address), port)) {
        accept();
        thread_ = std::thread([this] { io_.run(); });
    }

    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    ~Server() {
        io_.stop();
        thread_.join();
    }

    [[nodiscard]] std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

private:
    struct Connection {
        explicit Connection(asio::io_context& io)
            : socket(io) {}

        tcp::socket socket;
        asio::streambuf request{8192};  // a request line and headers; a larger request is refused
        std::string response;
    };

    void accept() {
        auto c = std::make_shared<Connection>(io_);
        acceptor_.async_accept(c->socket, [this, c](const boost::system::error_code& ec) {
            if (ec == asio::error::operation_aborted) {
                return;
            }
            if (!ec) {
                read(c);
            }
            accept();
        });
    }

    void read(const std::shared_ptr<Connection>& c) {
        asio::async_read_until(
            c->socket, c->request, "\r\n\r\n", [this, c](const boost::system::error_code& ec, std::size_t) {
                if (!ec) {
                    std::istream in(&c->request);
                    std::string method;
                    std::string target;
                    in >> method >> target;
                    c->response = respond(method, target);
                    asio::async_write(c->socket,
                                      asio::buffer(c->response),
                                      [c](const boost::system::error_code&, std::size_t) {
                                          boost::system::error_code ignored;
                                          c->socket.shutdown(tcp::socket::shutdown_both, ignored);
                                      });
                }
            });
    }

    std::string respond(const std::string& method, const std::string& target) const {
        if (method != "GET" || (target != "/metrics" && !target.starts_with("/metrics?"))) {
            return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        }
        std::string body;
        try {
            body = metrics_();
        } catch (const std::exception& e) {
            return fmt::format("HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n"
                               "Content-Length: {}\r\nConnection: close\r\n\r\n{}",
                               std::string_view(e.what()).size(),
                               e.what());
        }
        return fmt::format(
            "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
            rmq::prometheus_content_type,
            body.size(),
            body);
    }

    std::function<std::string()> metrics_;
    asio::io_context io_;
    tcp::acceptor acceptor_;
    std::thread thread_;
};

/// A response split into its status line, headers and body.
struct Response {
    std::string status_line;
    std::string headers;
    std::string body;
};

/// GET `path` from 127.0.0.1:`port` over a fresh connection; throws boost::system::system_error on a socket
/// error.
inline Response get(std::uint16_t port, std::string_view path = "/metrics") {
    asio::io_context io;
    tcp::socket socket(io);
    socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    const std::string request = fmt::format("GET {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", path, port);
    asio::write(socket, asio::buffer(request));
    std::string raw;
    boost::system::error_code ec;
    asio::read(socket, asio::dynamic_buffer(raw), ec);  // until the server closes
    if (ec && ec != asio::error::eof) {
        throw boost::system::system_error(ec);
    }
    Response r;
    const auto line_end = raw.find("\r\n");
    const auto head_end = raw.find("\r\n\r\n");
    if (line_end == std::string::npos || head_end == std::string::npos) {
        r.status_line = raw;
        return r;
    }
    r.status_line = raw.substr(0, line_end);
    r.headers = raw.substr(line_end + 2, head_end - line_end - 2);
    r.body = raw.substr(head_end + 4);
    return r;
}

}  // namespace metrics_http
