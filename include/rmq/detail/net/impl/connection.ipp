#pragma once

/// @file detail/net/impl/connection.ipp
/// One TCP connection to a RocketMQ peer (NameServer or Broker): lazily connected, requests matched to
/// responses by opaque with per-request timeouts, oneway requests, broker-initiated requests answered, frames
/// above 16 MiB refused, a connect started by any request that finds none in flight (Java's invoke on an
/// inactive channel), connection loss and recovery reported to the owner. Every socket operation runs on the
/// owner's io_context
/// thread (a single thread, so no strand is needed). With TLS (a context given) each connect is followed by a
/// handshake on a fresh asio::ssl::stream that takes over the socket; without, the socket is used directly.
/// Only the client (impl/client.ipp) uses it, so the whole class lives here, behind the client's pimpl, and
/// Asio is parsed only where the connection layer is compiled.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/protocol.hpp>
#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/command.hpp>

#include <rmq/detail/net/connection.hpp>
#include <rmq/detail/net/frame_reader.hpp>
#include <rmq/detail/net/impl/tls.ipp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

namespace asio = boost::asio;

/// A connection to one address. Create it with std::make_shared; the io_context must outlive it and run on
/// exactly one thread.
// Copies deleted, nothing to destroy by hand: no special member is missing.
// NOLINTNEXTLINE(cppcoreguidelines-special-member-functions)
class RemotingConnection : public std::enable_shared_from_this<RemotingConnection> {
public:
    RemotingConnection(asio::io_context& io,
                       std::string addr,
                       ConnectionOptions options,
                       RequestHandler on_request,
                       ConnectHook on_connect,
                       ConnectionEventHook on_event = {},
                       std::shared_ptr<asio::ssl::context> tls_context = {})
        : io_(io)
        , addr_(std::move(addr))
        , options_(std::move(options))
        , on_request_(std::move(on_request))
        , on_connect_(std::move(on_connect))
        , on_event_(std::move(on_event))
        , tls_context_(std::move(tls_context))
        , socket_(io)
        , resolver_(io)
        , connect_timer_(io)
        , timeout_timer_(io) {}

    RemotingConnection(const RemotingConnection&) = delete;
    RemotingConnection& operator=(const RemotingConnection&) = delete;

    [[nodiscard]] const std::string& address() const noexcept { return addr_; }

    /// Whether the socket is connected now.
    [[nodiscard]] bool connected() const noexcept { return state_flag_.load() == 2; }

    /// Successful connects so far (1 after the first, +1 per reconnect).
    [[nodiscard]] std::uint64_t connect_count() const noexcept { return connects_.load(); }

    /// Sends a two-way request; `callback` gets the response, rmq::Timeout after `timeout_millis`, or
    /// rmq::Error when the connection fails. The opaque is assigned here. Throws rmq::remoting::CodecError
    /// (nothing is sent) when the frame cannot be encoded, e.g. above 16 MiB.
    void invoke_async(remoting::Command cmd, std::int64_t timeout_millis, RemotingCallback callback) {
        cmd.opaque = next_opaque();
        cmd.flag &= ~(remoting::command_flag::response | remoting::command_flag::oneway);
        auto frame = std::make_shared<std::string>(encode_checked(cmd));
        if (closed_.load()) {
            callback(std::nullopt, closed_error());
            return;
        }
        // Requests queue here; the first of a batch posts the io thread one task that takes them all (one
        // wake-up of the io thread for a burst of sends, not one each).
        bool post = false;
        {
            const std::lock_guard lock(submit_mutex_);
            submitted_.push_back(
                Submitted{cmd.opaque, std::move(frame), timeout_millis, std::move(callback)});
            post = !std::exchange(submit_posted_, true);
        }
        if (post) {
            asio::post(io_, [self = shared_from_this()] { self->start_submitted(); });
        }
    }

    /// Sends a oneway request (flag bit 1): no answer is expected; failures are only logged. The frame holds
    /// `permit` until it is written or dropped (OnewayPermits).
    void invoke_oneway(remoting::Command cmd, std::shared_ptr<void> permit) {
        cmd.opaque = next_opaque();
        cmd.flag = remoting::command_flag::oneway;
        auto frame = std::shared_ptr<std::string>(new std::string(encode_checked(cmd)),
                                                  [permit = std::move(permit)](std::string* p) { delete p; });
        if (closed_.load()) {
            throw IllegalState(fmt::format("connection to {} is closed", addr_));
        }
        asio::post(io_, [self = shared_from_this(), frame = std::move(frame)]() mutable {
            if (self->closed_.load()) {
                return;
            }
            self->writes_.push_back(std::move(frame));
            self->kick();
        });
    }

    /// Closes the socket for good; pending requests fail with rmq::Error. Safe from any thread.
    void close() {
        if (closed_.exchange(true)) {
            return;
        }
        asio::post(io_,
                   [self = shared_from_this()] { self->shutdown_socket("connection closed by the client"); });
    }

    /// Test hook: drops the current socket (as a network failure would); the next request reconnects.
    void drop_for_test() {
        asio::post(io_, [self = shared_from_this()] { self->shutdown_socket("connection dropped"); });
    }

private:
    enum class State { Disconnected, Connecting, Connected };

    using TlsStream = asio::ssl::stream<asio::ip::tcp::socket>;

    struct Pending {
        RemotingCallback callback;
        std::int64_t timeout_millis = 0;
    };

    struct Submitted {
        std::int32_t opaque = 0;
        std::shared_ptr<std::string> frame;
        std::int64_t timeout_millis = 0;
        RemotingCallback callback;
    };

    /// When a request times out; answered requests stay until then (skipped: no timer to cancel per answer).
    struct Deadline {
        std::chrono::steady_clock::time_point at;
        std::int32_t opaque = 0;

        bool operator>(const Deadline& o) const { return at > o.at; }
    };

    // Requests go in the configured serialization, answers in their request's (Java's writeResponse).
    std::string encode_checked(const remoting::Command& cmd) const {
        return encode_checked(cmd, remoting::request_serialize_type(cmd, options_.serialize_type));
    }

    std::string encode_checked(const remoting::Command& cmd, remoting::SerializeType type) const {
        std::string frame = remoting::encode(cmd, type);
        if (frame.size() > options_.max_frame_length) {
            throw remoting::CodecError(
                fmt::format("request frame of {} bytes to {} exceeds the {} byte limit",
                            frame.size(),
                            addr_,
                            options_.max_frame_length));
        }
        return frame;
    }

    std::exception_ptr closed_error() const {
        return std::make_exception_ptr(Error(fmt::format("connection to {} is closed", addr_)));
    }

    // ------------------------------------------------------------------ io thread only below

    /// The requests of invoke_async so far, in their order.
    void start_submitted() {
        {
            const std::lock_guard lock(submit_mutex_);
            starting_.swap(submitted_);
            submit_posted_ = false;
        }
        const bool closed = closed_.load();
        for (auto& r : starting_) {
            if (closed) {
                r.callback(std::nullopt, closed_error());
                continue;
            }
            // Disconnected: this request starts a connect, whatever an earlier failure was (the peer may be
            // back); Connecting: it waits for the attempt in flight.
            register_pending(r.opaque, r.timeout_millis, std::move(r.callback));
            writes_.push_back(std::move(r.frame));
        }
        starting_.clear();  // its room stays for the next batch
        if (!closed) {
            kick();
        }
    }

    void register_pending(std::int32_t opaque, std::int64_t timeout_millis, RemotingCallback cb) {
        const auto at = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::max<std::int64_t>(timeout_millis, 1));
        deadlines_.push(Deadline{at, opaque});
        pending_.insert_or_assign(opaque, Pending{std::move(cb), timeout_millis});
        if (!timeout_armed_ || at < timeout_at_) {
            arm_timeouts(at);
        }
    }

    // One timer for every request: set to the earliest deadline.
    void arm_timeouts(std::chrono::steady_clock::time_point at) {
        timeout_armed_ = true;
        timeout_at_ = at;
        timeout_timer_.expires_at(at);  // a wait in flight ends with operation_aborted
        timeout_timer_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
            if (ec) {
                return;
            }
            if (auto self = weak.lock()) {
                self->expire_requests();
            }
        });
    }

    void expire_requests() {
        timeout_armed_ = false;
        const auto now = std::chrono::steady_clock::now();
        // Answered requests leave here, whatever their deadline: the timer is next set to the oldest request
        // still waiting (so under steady traffic it fires about once per timeout, not once per request).
        while (!deadlines_.empty()) {
            const Deadline d = deadlines_.top();
            const auto it = pending_.find(d.opaque);
            if (it != pending_.end() && d.at > now) {
                break;
            }
            deadlines_.pop();
            if (it != pending_.end()) {
                complete(d.opaque,
                         std::nullopt,
                         std::make_exception_ptr(
                             Timeout(fmt::format("wait response on the channel <{}> timeout, {}(ms)",
                                                 addr_,
                                                 it->second.timeout_millis))));
            }
        }
        if (!deadlines_.empty() && (!timeout_armed_ || deadlines_.top().at < timeout_at_)) {
            arm_timeouts(deadlines_.top().at);
        }
    }

    void complete(std::int32_t opaque, std::optional<remoting::Command> response, std::exception_ptr error) {
        const auto it = pending_.find(opaque);
        if (it == pending_.end()) {
            return;  // late or unknown response: dropped, as Java does
        }
        Pending p = std::move(it->second);
        pending_.erase(it);
        invoke(p.callback, std::move(response), std::move(error));
    }

    void invoke(RemotingCallback& cb, std::optional<remoting::Command> response, std::exception_ptr error) {
        try {
            cb(std::move(response), std::move(error));
        } catch (const std::exception& e) {
            log_line(LogLevel::Error, "callback of a request to {} threw: {}", addr_, e.what());
        }
    }

    void fail_all(const std::string& message) { fail_all(std::make_exception_ptr(Error(message))); }

    void fail_all(const std::exception_ptr& error) {
        auto pending = std::move(pending_);
        pending_.clear();
        deadlines_ = {};
        for (auto& [opaque, p] : pending) {
            invoke(p.callback, std::nullopt, error);
        }
    }

    void set_state(State s) {
        state_ = s;
        state_flag_.store(s == State::Disconnected ? 0 : (s == State::Connecting ? 1 : 2));
    }

    void kick() {
        if (state_ == State::Connected) {
            start_write();
        } else if (state_ == State::Disconnected) {
            start_connect();
        }
    }

    void start_connect() {
        set_state(State::Connecting);
        ++generation_;
        const std::size_t colon = addr_.rfind(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == addr_.size()) {
            connect_failed(fmt::format("bad address '{}' (want host:port)", addr_));
            return;
        }
        std::string host = addr_.substr(0, colon);
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
            host = host.substr(1, host.size() - 2);
        }
        const std::string port = addr_.substr(colon + 1);
        connect_timer_.expires_after(std::chrono::milliseconds(options_.connect_timeout_millis));
        connect_timer_.async_wait(
            [self = shared_from_this(), gen = generation_](const boost::system::error_code& ec) {
                if (!ec && gen == self->generation_ && self->state_ == State::Connecting) {
                    self->resolver_.cancel();
                    self->close_transport();  // the pending connect or handshake ends with operation_aborted
                    self->timed_out_ = true;
                }
            });
        timed_out_ = false;
        resolver_.async_resolve(
            host,
            port,
            [self = shared_from_this(), gen = generation_](
                const boost::system::error_code& ec, const asio::ip::tcp::resolver::results_type& results) {
                if (gen != self->generation_) {
                    return;
                }
                if (ec) {
                    self->connect_failed(self->timed_out_ ? std::string("connect timeout") : ec.message());
                    return;
                }
                asio::async_connect(
                    self->socket_,
                    results,
                    [self, gen](const boost::system::error_code& ec2, const asio::ip::tcp::endpoint&) {
                        if (gen != self->generation_) {
                            return;
                        }
                        if (ec2) {
                            self->connect_failed(self->timed_out_ ? std::string("connect timeout")
                                                                  : ec2.message());
                            return;
                        }
                        boost::system::error_code ignored;
                        self->socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
                        if (self->tls_context_) {
                            self->start_handshake();
                        } else {
                            self->connected_ok();
                        }
                    });
            });
    }

    // The TLS stream takes the connected socket over (socket_ is left closed, ready for the next connect);
    // every operation on it keeps it alive through its handler, as a reconnect replaces it.
    void start_handshake() {
        tls_ = std::make_shared<TlsStream>(std::move(socket_), *tls_context_);
        const std::string host = options_.tls.server_name.empty() ? host_of_addr() : options_.tls.server_name;
        boost::system::error_code not_ip;
        (void)asio::ip::make_address(host, not_ip);
        // SNI carries host names only (RFC 6066); OpenSSL copies the string
        if (not_ip && !host.empty() && SSL_set_tlsext_host_name(tls_->native_handle(), host.c_str()) != 1) {
            log_line(LogLevel::Warn, "TLS to {}: SNI name '{}' not set", addr_, host);
        }
        tls_->async_handshake(
            asio::ssl::stream_base::client,
            [self = shared_from_this(), gen = generation_, keep = tls_](const boost::system::error_code& ec) {
                if (gen != self->generation_) {
                    return;
                }
                if (ec) {
                    if (self->timed_out_) {
                        self->connect_failed("connect timeout (TLS handshake)");
                        return;
                    }
                    const std::string why =
                        fmt::format("TLS handshake with {} failed: {}",
                                    self->addr_,
                                    tls_failure_reason(
                                        ec, keep->native_handle(), tls_verifies_server(self->options_.tls)));
                    if (why != self->last_tls_failure_) {  // once per cause, not per retried request
                        self->last_tls_failure_ = why;
                        log_line(LogLevel::Error, "{}", why);
                    }
                    self->connect_failed(why, std::make_exception_ptr(TlsError(why)));
                    return;
                }
                self->last_tls_failure_.clear();
                self->connected_ok();
            });
    }

    [[nodiscard]] std::string host_of_addr() const {
        std::string host = addr_.substr(0, addr_.rfind(':'));
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
            host = host.substr(1, host.size() - 2);
        }
        return host;
    }

    /// Closes the socket, or the one under the TLS stream, which is dropped.
    void close_transport() {
        boost::system::error_code ignored;
        if (tls_) {
            tls_->lowest_layer().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
            tls_->lowest_layer().close(ignored);
            tls_.reset();
        }
        socket_.close(ignored);
    }

    void connect_failed(const std::string& why, const std::exception_ptr& error = nullptr) {
        connect_timer_.cancel();
        close_transport();
        set_state(State::Disconnected);
        writes_.clear();
        fail_all(error ? error
                       : std::make_exception_ptr(Error(fmt::format("connect to {} failed: {}", addr_, why))));
    }

    void connected_ok() {
        connect_timer_.cancel();
        set_state(State::Connected);
        const bool recovered = std::exchange(lost_, false);
        const bool reconnect = connects_.fetch_add(1) != 0;
        if (on_connect_ && reconnect) {
            std::vector<remoting::Command> first;
            try {
                first = on_connect_(addr_);
            } catch (const std::exception& e) {
                log_line(LogLevel::Warn, "connect hook for {} failed: {}", addr_, e.what());
            }
            // the broker runs heartbeats and pulls on different executors: queued requests wait until the
            // hook's requests are answered (or failed), not just written, so a pull never overtakes them
            for (auto& cmd : first) {
                cmd.opaque = next_opaque();
                cmd.flag = 0;
                try {
                    auto frame = std::make_shared<std::string>(encode_checked(cmd));
                    ++hold_;
                    register_pending(cmd.opaque,
                                     10000,
                                     [weak = weak_from_this(),
                                      gen = generation_](const std::optional<remoting::Command>& /*response*/,
                                                         const std::exception_ptr& /*error*/) {
                                         if (auto self = weak.lock(); self && gen == self->generation_) {
                                             if (self->hold_ > 0) {
                                                 --self->hold_;
                                             }
                                             self->start_write();
                                         }
                                     });
                    priority_writes_.push_back(std::move(frame));
                } catch (const std::exception& e) {
                    log_line(LogLevel::Warn, "request to {} after connect not sent: {}", addr_, e.what());
                }
            }
        }
        reader_.reset();  // a new stream
        start_read();
        start_write();
        if (recovered) {
            report(true);
        }
    }

    /// Tells the owner that the connection was lost or is back (not when the client closed it).
    void report(bool connected) {
        if (!on_event_ || closed_.load()) {
            return;
        }
        try {
            on_event_(addr_, connected);
        } catch (const std::exception& e) {
            log_line(LogLevel::Warn, "connection event handler for {} failed: {}", addr_, e.what());
        }
    }

    void shutdown_socket(const std::string& why) {
        const bool lost = state_ == State::Connected && !closed_.load();
        ++generation_;
        connect_timer_.cancel();
        resolver_.cancel();
        boost::system::error_code ignored;
        socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
        close_transport();
        set_state(State::Disconnected);
        writing_ = false;
        writes_.clear();
        priority_writes_.clear();
        hold_ = 0;
        fail_all(fmt::format("{} ({})", why, addr_));
        if (lost) {
            lost_ = true;
            report(false);
        }
    }

    void start_write() {
        if (writing_ || state_ != State::Connected) {
            return;
        }
        const bool priority = !priority_writes_.empty();
        if (!priority && (hold_ > 0 || writes_.empty())) {
            return;
        }
        auto& queue = priority ? priority_writes_ : writes_;
        writing_ = true;
        // The frames queued meanwhile go out in one gather write (one syscall for many requests when many
        // are in flight, e.g. asynchronous sends), up to write_batch_frames / write_batch_bytes.
        auto frames = std::make_shared<std::vector<std::shared_ptr<std::string>>>();
        std::vector<asio::const_buffer> buffers;
        std::size_t bytes = 0;
        for (const auto& frame : queue) {
            if (!frames->empty() && (frames->size() >= write_batch_frames || bytes >= write_batch_bytes)) {
                break;
            }
            frames->push_back(frame);
            buffers.emplace_back(asio::buffer(*frame));
            bytes += frame->size();
        }
        write_to_peer(buffers,
                      [self = shared_from_this(), frames, priority, gen = generation_, keep = tls_](
                          const boost::system::error_code& ec, std::size_t) {
                          if (gen != self->generation_) {
                              return;
                          }
                          self->writing_ = false;
                          if (ec) {
                              self->shutdown_socket(fmt::format("write failed: {}", ec.message()));
                              return;
                          }
                          auto& q = priority ? self->priority_writes_ : self->writes_;
                          for (std::size_t i = 0; i < frames->size() && !q.empty(); ++i) {
                              q.pop_front();
                          }
                          self->start_write();
                      });
    }

    static constexpr std::size_t write_batch_frames = 64;
    static constexpr std::size_t write_batch_bytes = 256 * 1024;

    // The two ways to the peer: the TLS stream when there is one (kept alive by the handler), else the
    // socket.
    template <typename Buffer, typename Handler>
    void read_some_from_peer(const Buffer& buffer, Handler&& handler) {
        if (tls_) {
            tls_->async_read_some(buffer, std::forward<Handler>(handler));
        } else {
            socket_.async_read_some(buffer, std::forward<Handler>(handler));
        }
    }

    template <typename Buffer, typename Handler>
    void write_to_peer(const Buffer& buffer, Handler&& handler) {
        if (tls_) {
            asio::async_write(*tls_, buffer, std::forward<Handler>(handler));
        } else {
            asio::async_write(socket_, buffer, std::forward<Handler>(handler));
        }
    }

    // One read takes whatever the socket holds into the frame reader's buffer; every complete frame in it
    // is dispatched before the next read (a burst of answers costs one recv, not two per frame).
    void start_read() {
        const std::span<std::byte> room = reader_.prepare();
        read_some_from_peer(
            asio::buffer(room.data(), room.size()),
            [self = shared_from_this(), gen = generation_, keep = tls_](const boost::system::error_code& ec,
                                                                        std::size_t n) {
                if (gen != self->generation_) {
                    return;
                }
                if (ec) {
                    // a TLS peer closing without close_notify (as Java's does) ends the stream "truncated"
                    self->shutdown_socket(ec == asio::error::eof || ec == asio::ssl::error::stream_truncated
                                              ? std::string("connection closed by the peer")
                                              : fmt::format("read failed: {}", ec.message()));
                    return;
                }
                self->reader_.commit(n);
                if (self->dispatch_frames(gen)) {
                    self->start_read();
                }
            });
    }

    /// Dispatches the complete frames read; false when the connection was closed meanwhile (a refused or
    /// undecodable frame, or a callback closing it).
    bool dispatch_frames(std::uint64_t gen) {
        for (;;) {
            std::optional<std::span<const std::byte>> payload;
            try {
                payload = reader_.next();
            } catch (const std::exception& e) {
                refuse_frame(e.what());
                return false;
            }
            if (!payload) {
                return true;
            }
            std::optional<remoting::Command> cmd;
            try {
                cmd = remoting::decode_payload(*payload);
            } catch (const std::exception& e) {
                log_line(
                    LogLevel::Warn, "closing the connection to {}: undecodable frame: {}", addr_, e.what());
                shutdown_socket(fmt::format("undecodable frame: {}", e.what()));
                return false;
            }
            dispatch(std::move(*cmd));
            if (gen != generation_) {
                return false;
            }
        }
    }

    void refuse_frame(std::string why) {
        const std::span<const std::byte> head = reader_.unread();
        // a TLS record (alert 0x15 or handshake 0x16, version 3.x) where a length was due
        if (!tls_ && head.size() >= 2 && (head[0] == std::byte{0x15} || head[0] == std::byte{0x16}) &&
            head[1] == std::byte{0x03}) {
            why = fmt::format("the peer answered with TLS: it requires TLS (RemotingConfig::tls, "
                              "tls.enable) ({})",
                              why);
        }
        log_line(LogLevel::Warn, "closing the connection to {}: {}", addr_, why);
        shutdown_socket(fmt::format("frame refused: {}", why));
    }

    void dispatch(remoting::Command cmd) {
        if (cmd.is_response()) {
            const std::int32_t opaque = cmd.opaque;
            complete(opaque, std::move(cmd), nullptr);
            return;
        }
        RequestReply reply;
        try {
            if (on_request_) {
                reply = on_request_(addr_, cmd, responder(cmd));
            }
        } catch (const std::exception& e) {
            reply.answer.emplace();
            reply.answer->code = response_code::system_error;
            reply.answer->remark = e.what();
        }
        if (cmd.is_oneway() || reply.later) {
            return;  // a oneway request is never answered; a later answer comes through the responder
        }
        if (!reply.answer) {
            reply.answer.emplace();
            reply.answer->code = response_code::request_code_not_supported;
            reply.answer->remark = fmt::format(" request type {} not supported", cmd.code);
        }
        write_answer(std::move(*reply.answer), cmd.opaque, cmd.serialize_type);
    }

    /// Answers `request` from any thread, on this socket only (a reconnect drops it: the request came on the
    /// old one).
    Responder responder(const remoting::Command& request) {
        if (request.is_oneway()) {
            return [](const remoting::Command&) {
            };  // a oneway request gets no answer
        }
        return [weak = weak_from_this(),
                gen = generation_,
                opaque = request.opaque,
                type = request.serialize_type](remoting::Command answer) {
            const auto self = weak.lock();
            if (!self || self->closed_.load()) {
                return;
            }
            asio::post(self->io_, [self, gen, opaque, type, answer = std::move(answer)]() mutable {
                if (gen == self->generation_ && self->state_ == State::Connected) {
                    self->write_answer(std::move(answer), opaque, type);
                }
            });
        };
    }

    // Answers go in their request's serialization (Java's writeResponse).
    void write_answer(remoting::Command answer, std::int32_t opaque, remoting::SerializeType type) {
        answer.opaque = opaque;
        answer.flag = remoting::command_flag::response;
        answer.serialize_type = type;
        try {
            writes_.push_back(std::make_shared<std::string>(encode_checked(answer, type)));
        } catch (const std::exception& e) {
            remoting::Command err;
            err.code = response_code::system_error;
            err.remark = e.what();
            err.opaque = opaque;
            err.flag = remoting::command_flag::response;
            writes_.push_back(std::make_shared<std::string>(remoting::encode(err, type)));
        }
        start_write();
    }

    asio::io_context& io_;
    const std::string addr_;
    const ConnectionOptions options_;
    RequestHandler on_request_;
    ConnectHook on_connect_;
    ConnectionEventHook on_event_;
    /// Set: every connection is TLS (null: plain TCP).
    const std::shared_ptr<asio::ssl::context> tls_context_;

    asio::ip::tcp::socket socket_;
    /// The TLS stream of the current connection (owning the socket), from the handshake on.
    std::shared_ptr<TlsStream> tls_;
    /// The last handshake failure logged (cleared by a success).
    std::string last_tls_failure_;
    asio::ip::tcp::resolver resolver_;
    asio::steady_timer connect_timer_;
    State state_ = State::Disconnected;
    std::atomic<int> state_flag_{0};
    std::atomic<bool> closed_{false};
    std::atomic<std::uint64_t> connects_{0};
    std::uint64_t generation_ = 0;
    bool timed_out_ = false;
    bool writing_ = false;
    std::deque<std::shared_ptr<std::string>> writes_;
    /// Requests of the connect hook, written first; `hold_` of them are still unanswered.
    std::deque<std::shared_ptr<std::string>> priority_writes_;
    int hold_ = 0;
    std::unordered_map<std::int32_t, Pending> pending_;
    std::priority_queue<Deadline, std::vector<Deadline>, std::greater<>> deadlines_;
    asio::steady_timer timeout_timer_;
    bool timeout_armed_ = false;
    std::chrono::steady_clock::time_point timeout_at_;
    /// invoke_async's requests on their way to the io thread (submit_posted_: a task to take them is queued).
    std::mutex submit_mutex_;
    std::vector<Submitted> submitted_;
    bool submit_posted_ = false;
    std::vector<Submitted> starting_;  // io thread: the batch being started
    FrameReader reader_{options_.max_frame_length};
    /// An established connection was lost and no connect succeeded since (the next success is reported).
    bool lost_ = false;
};

}  // namespace rmq::detail
