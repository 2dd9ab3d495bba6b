#pragma once

// A scrape over a plain POSIX socket, independent of the server's Asio code: it sends the bytes given and
// reads until the server closes, with a receive timeout so that a server that never answers fails the test
// instead of hanging it.

#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <fmt/format.h>

namespace http_get {

/// A response split into its status line, headers and body.
struct Response {
    std::string status_line;
    std::string headers;
    std::string body;
};

/// Sends `request` as is to 127.0.0.1:`port` and returns everything the server wrote before closing.
inline std::string send_raw(std::uint16_t port, std::string_view request) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        throw std::system_error(errno, std::generic_category(), "socket");
    }

    struct Closer {
        int fd;

        ~Closer() { ::close(fd); }
    } closer{fd};

    timeval timeout{.tv_sec = 10, .tv_usec = 0};
    (void)::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        throw std::system_error(errno, std::generic_category(), "connect");
    }
    for (std::size_t sent = 0; sent < request.size();) {
        const auto n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n < 0) {
            throw std::system_error(errno, std::generic_category(), "send");
        }
        sent += static_cast<std::size_t>(n);
    }
    std::string raw;
    char buf[4096];
    for (;;) {
        const auto n = ::recv(fd, buf, sizeof buf, 0);
        if (n == 0) {
            return raw;
        }
        if (n < 0) {
            throw std::system_error(errno, std::generic_category(), "recv (no answer within 10 s?)");
        }
        raw.append(buf, static_cast<std::size_t>(n));
    }
}

inline Response split(const std::string& raw) {
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

/// `method` `path` from 127.0.0.1:`port` over a fresh connection.
inline Response get(std::uint16_t port, std::string_view path = "/metrics", std::string_view method = "GET") {
    return split(
        send_raw(port, fmt::format("{} {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", method, path, port)));
}

}  // namespace http_get
