#pragma once

// An in-process RocketMQ-speaking TCP server for the transport tests: accepts connections on 127.0.0.1 (an
// ephemeral port), decodes frames and hands each command to a handler that may answer, stay silent, send
// requests of its own or misbehave (oversize frames, closing). Given an asio::ssl::context it is a TLS
// server: each session handshakes first (failures and the SNI name a client sent are recorded).

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <fmt/format.h>

#include <rmq/remoting/bodies.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/remoting/request_code.hpp>

namespace rmq_test {

namespace asio = boost::asio;

class FakeServer;

/// One accepted connection. Methods are thread-safe (they post to the server's thread).
class FakeSession : public std::enable_shared_from_this<FakeSession> {
public:
    FakeSession(asio::ip::tcp::socket s, FakeServer& server, asio::ssl::context* tls)
        : socket_(std::move(s))
        , server_(server) {
        if (tls != nullptr) {
            tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(socket_, *tls);
        }
    }

    /// Sends a command (encoded as JSON unless `type` says otherwise).
    void send(const rmq::remoting::Command& cmd,
              rmq::remoting::SerializeType type = rmq::remoting::SerializeType::Json) {
        send_raw(rmq::remoting::encode(cmd, type));
    }

    /// Sends raw bytes.
    void send_raw(std::string bytes) {
        asio::post(socket_.get_executor(), [self = shared_from_this(), b = std::move(bytes)]() mutable {
            self->out_.push_back(std::move(b));
            self->write();
        });
    }

    /// A response to `req` with `code` (and optional ext fields / body).
    static rmq::remoting::Command response_to(const rmq::remoting::Command& req, int code = 0) {
        rmq::remoting::Command r;
        r.code = code;
        r.language = rmq::remoting::LanguageCode::Java;
        r.opaque = req.opaque;
        r.flag = rmq::remoting::command_flag::response;
        return r;
    }

    void close() {
        asio::post(socket_.get_executor(), [self = shared_from_this()] { self->close_now(); });
    }

    /// close() on the server thread.
    void close_now() {
        boost::system::error_code ec;
        socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
        socket_.close(ec);
    }

    void start();

private:
    template <typename Buffer, typename Handler>
    void read(const Buffer& b, Handler&& h) {
        if (tls_) {
            asio::async_read(*tls_, b, std::forward<Handler>(h));
        } else {
            asio::async_read(socket_, b, std::forward<Handler>(h));
        }
    }

    void write() {
        if (writing_ || out_.empty()) {
            return;
        }
        writing_ = true;
        auto done = [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
            self->writing_ = false;
            self->out_.pop_front();
            if (!ec) {
                self->write();
            }
        };
        if (tls_) {
            asio::async_write(*tls_, asio::buffer(out_.front()), std::move(done));
        } else {
            asio::async_write(socket_, asio::buffer(out_.front()), std::move(done));
        }
    }

    void read_header();
    void read_payload(std::size_t n);

    asio::ip::tcp::socket socket_;
    std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket&>> tls_;
    FakeServer& server_;
    std::array<std::byte, 4> len_{};
    std::deque<std::string> out_;
    bool writing_ = false;
};

/// The server. `handler` runs on the server thread for every command a client sends.
class FakeServer {
public:
    using Handler = std::function<void(FakeSession&, const rmq::remoting::Command&)>;

    explicit FakeServer(Handler handler = {},
                        std::uint16_t port = 0,
                        std::shared_ptr<asio::ssl::context> tls = {})
        : handler_(std::move(handler))
        , tls_(std::move(tls))
        , acceptor_(io_, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port))
        , port_(acceptor_.local_endpoint().port()) {
        accept();
        thread_ = std::thread([this] { io_.run(); });
    }

    FakeServer(const FakeServer&) = delete;
    FakeServer& operator=(const FakeServer&) = delete;

    ~FakeServer() { stop(); }

    void stop() {
        if (stopped_) {
            return;
        }
        stopped_ = true;
        asio::post(io_, [this] {
            boost::system::error_code ec;
            acceptor_.close(ec);
            for (auto& w : sessions_) {
                if (auto s = w.lock()) {
                    s->close_now();
                }
            }
            io_.stop();
        });
        thread_.join();
    }

    /// Known from the start: another server's handler may ask for it after this one stopped (the closed
    /// acceptor's local_endpoint() would throw on that server's thread and end the process).
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

    [[nodiscard]] std::string address() const { return fmt::format("127.0.0.1:{}", port()); }

    void set_handler(Handler h) {
        const std::lock_guard lock(mutex_);
        handler_ = std::move(h);
    }

    /// Every command received so far.
    std::vector<rmq::remoting::Command> received() {
        const std::lock_guard lock(mutex_);
        return received_;
    }

    [[nodiscard]] int accepted() {
        const std::lock_guard lock(mutex_);
        return accepted_;
    }

    /// Waits until `pred(received())` holds (generous timeout); returns whether it did.
    bool wait_for(const std::function<bool(const std::vector<rmq::remoting::Command>&)>& pred,
                  std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, timeout, [&] { return pred(received_); });
    }

    /// The most recent session (e.g. to push a broker request to the client).
    std::shared_ptr<FakeSession> last_session() {
        const std::lock_guard lock(mutex_);
        return sessions_.empty() ? nullptr : sessions_.back().lock();
    }

    bool wait_session(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, timeout, [&] { return !sessions_.empty() && sessions_.back().lock(); });
    }

    /// TLS handshakes that failed (OpenSSL's reasons) and frames refused, in order.
    std::vector<std::string> failures() {
        const std::lock_guard lock(mutex_);
        return failures_;
    }

    /// The SNI names of the completed TLS handshakes ("" when the client sent none).
    std::vector<std::string> server_names() {
        const std::lock_guard lock(mutex_);
        return server_names_;
    }

    bool wait_failures(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, timeout, [&] { return failures_.size() >= n; });
    }

    void on_failure(std::string why) {
        {
            const std::lock_guard lock(mutex_);
            failures_.push_back(std::move(why));
        }
        cv_.notify_all();
    }

    void on_handshake(std::string server_name) {
        {
            const std::lock_guard lock(mutex_);
            server_names_.push_back(std::move(server_name));
        }
        cv_.notify_all();
    }

    void on_command(FakeSession& s, rmq::remoting::Command cmd) {
        Handler h;
        {
            const std::lock_guard lock(mutex_);
            received_.push_back(cmd);
            h = handler_;
        }
        cv_.notify_all();
        if (h) {
            h(s, cmd);
        }
    }

private:
    void accept() {
        acceptor_.async_accept([this](const boost::system::error_code& ec, asio::ip::tcp::socket sock) {
            if (ec) {
                return;
            }
            auto s = std::make_shared<FakeSession>(std::move(sock), *this, tls_.get());
            {
                const std::lock_guard lock(mutex_);
                sessions_.push_back(s);
                ++accepted_;
            }
            cv_.notify_all();
            s->start();
            accept();
        });
    }

    Handler handler_;
    std::shared_ptr<asio::ssl::context> tls_;
    asio::io_context io_;
    asio::ip::tcp::acceptor acceptor_;
    std::uint16_t port_;
    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<rmq::remoting::Command> received_;
    std::vector<std::weak_ptr<FakeSession>> sessions_;
    int accepted_ = 0;
    bool stopped_ = false;
    std::vector<std::string> failures_;
    std::vector<std::string> server_names_;
};

inline void FakeSession::start() {
    if (!tls_) {
        read_header();
        return;
    }
    tls_->async_handshake(
        asio::ssl::stream_base::server, [self = shared_from_this()](const boost::system::error_code& ec) {
            if (ec) {
                self->server_.on_failure(fmt::format("handshake: {}", ec.message()));
                self->close_now();
                return;
            }
            const char* sni = SSL_get_servername(self->tls_->native_handle(), TLSEXT_NAMETYPE_host_name);
            self->server_.on_handshake(sni != nullptr ? sni : "");
            self->read_header();
        });
}

inline void FakeSession::read_header() {
    read(asio::buffer(len_), [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
        if (ec) {
            return;
        }
        std::size_t n = 0;
        try {
            n = rmq::remoting::frame_payload_length(std::as_bytes(std::span(self->len_)));
        } catch (const std::exception& e) {  // e.g. a TLS ClientHello at a plain server
            self->server_.on_failure(fmt::format("frame: {}", e.what()));
            self->close_now();
            return;
        }
        self->read_payload(n);
    });
}

inline void FakeSession::read_payload(std::size_t n) {
    auto buf = std::make_shared<std::vector<std::byte>>(n);
    read(asio::buffer(*buf),
         [self = shared_from_this(), buf](const boost::system::error_code& ec, std::size_t) {
             if (ec) {
                 return;
             }
             auto cmd = rmq::remoting::decode_payload(std::span<const std::byte>(*buf));
             self->server_.on_command(*self, std::move(cmd));
             self->read_header();
         });
}

/// A route for `topic`: broker-a (master at `master`, optional slave at `slave`) with `queues` queues.
inline std::string route_json(const std::string& master, const std::string& slave = {}, int queues = 4) {
    rmq::remoting::TopicRouteData r;
    rmq::remoting::QueueData qd;
    qd.broker_name = "broker-a";
    qd.read_queue_nums = queues;
    qd.write_queue_nums = queues;
    qd.perm = 6;
    r.queue_datas.push_back(qd);
    rmq::remoting::BrokerData bd;
    bd.cluster = "DefaultCluster";
    bd.broker_name = "broker-a";
    bd.broker_addrs.emplace_back(0, master);
    if (!slave.empty()) {
        bd.broker_addrs.emplace_back(1, slave);
    }
    r.broker_datas.push_back(bd);
    return rmq::remoting::encode_topic_route_data(r);  // fastjson form: unquoted numeric keys
}

/// The requests (not responses) with `code` that `server` received so far.
inline std::vector<rmq::remoting::Command> requests_of(FakeServer& server, std::int32_t code) {
    std::vector<rmq::remoting::Command> out;
    for (const auto& c : server.received()) {
        if (c.code == code && !c.is_response()) {
            out.push_back(c);
        }
    }
    return out;
}

/// A broker that answers every request with success (route queries with route_json of this server), letting
/// `fill` add to each answer; responses it receives (to requests it sent) are ignored.
inline void answer_ok(FakeServer& server,
                      std::function<void(const rmq::remoting::Command&, rmq::remoting::Command&)> fill = {}) {
    server.set_handler([&server, fill = std::move(fill)](FakeSession& s, const rmq::remoting::Command& req) {
        if (req.is_response()) {
            return;
        }
        auto r = FakeSession::response_to(req, 0);
        if (req.code == rmq::remoting::request_code::get_routeinfo_by_topic) {
            r.body = route_json(server.address());
        } else if (fill) {
            fill(req, r);
        }
        s.send(r);
    });
}

}  // namespace rmq_test
