// Producer-side compression through RemotingTransport::send: compress_msg_body_over_howmuch (inclusive, as
// Java's `body.length >= compressMsgBodyOverHowmuch`) and compress_level (the zlib level the body is deflated
// with), checked on the bytes a fake broker receives.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// See transport_test.cpp: -Wtsan on Boost.Asio's fences must be silenced before <atomic>.
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <string>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/remoting/compression.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using rmq::remoting::Command;

/// A broker that answers routes and SEND_MESSAGE_V2 successfully.
void serve_sends(rmq_test::FakeServer& server) {
    rmq_test::answer_ok(server, [](const Command& req, Command& r) {
        r.fields().set("msgId", "7F00000100002A9F0000000000000010");
        r.fields().set("queueId", std::string(req.field("e").value_or("0")));
        r.fields().set("queueOffset", "1");
    });
}

/// A body zlib shrinks, different at different levels.
std::string text(std::size_t n) {
    std::string body;
    for (std::size_t i = 0; body.size() < n; ++i) {
        body += std::to_string(i * 7919 % 1000) + (i % 3 == 0 ? " alpha " : " beta ");
    }
    body.resize(n);
    return body;
}

}  // namespace

TEST_CASE("send compresses bodies of at least compress_msg_body_over_howmuch bytes at compress_level",
          "[remoting_transport][compression]") {
    rmq_test::FakeServer server;
    serve_sends(server);
    rmq::RemotingConfig config;
    config.namesrv_addr = server.address();
    config.compress_msg_body_over_howmuch = 1000;
    config.compress_level = 9;
    rmq::RemotingTransport transport{config};
    const auto q = transport.topic_route("TopicTest").write_queues.at(0);
    const std::string at_threshold = text(1000);
    REQUIRE(rmq::remoting::compress(at_threshold, rmq::remoting::CompressionType::Zlib, 9) !=
            rmq::remoting::compress(at_threshold, rmq::remoting::CompressionType::Zlib, 1));

    (void)transport.send(rmq::Message("TopicTest", at_threshold), q);
    const Command at = server.received().back();
    CHECK(at.field("f") == std::to_string(0x1 | 0x300));  // COMPRESSED_FLAG | ZLIB type bits
    CHECK(at.body == rmq::remoting::compress(at_threshold, rmq::remoting::CompressionType::Zlib, 9));

    (void)transport.send(rmq::Message("TopicTest", text(999)), q);
    const Command below = server.received().back();
    CHECK(below.field("f") == "0");
    CHECK(below.body == text(999));
}

TEST_CASE("compress_level 1 deflates with level 1", "[remoting_transport][compression]") {
    rmq_test::FakeServer server;
    serve_sends(server);
    rmq::RemotingConfig config;
    config.namesrv_addr = server.address();
    config.compress_level = 1;
    rmq::RemotingTransport transport{config};
    const auto q = transport.topic_route("TopicTest").write_queues.at(0);
    const std::string body = text(8192);
    (void)transport.send(rmq::Message("TopicTest", body), q);
    const Command got = server.received().back();
    CHECK(got.body == rmq::remoting::compress(body, rmq::remoting::CompressionType::Zlib, 1));
    CHECK(rmq::remoting::decompress(got.body, rmq::remoting::CompressionType::Zlib) == body);
}
