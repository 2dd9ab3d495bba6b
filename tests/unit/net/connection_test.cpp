// The remoting connection layer against an in-process fake server: request/response by opaque, timeouts,
// oneway requests, broker-initiated requests, oversize frames, reconnects.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fake_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/net/client.hpp>

namespace {

using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;

Command request(int code, std::string topic = "T") {
    Command c;
    c.code = code;
    c.fields().set("topic", std::move(topic));
    return c;
}

rmq::detail::ConnectionOptions fast_options() {
    rmq::detail::ConnectionOptions o;
    o.connect_timeout_millis = 2000;
    return o;
}

/// Echo server: answers every request with code 0, echoing ext field "topic" into the remark.
void echo(rmq_test::FakeSession& s, const Command& req) {
    if (req.is_oneway()) {
        return;
    }
    auto r = rmq_test::FakeSession::response_to(req);
    r.remark = std::string(req.field("topic").value_or(""));
    r.body = req.body;
    s.send(r);
}

}  // namespace

TEST_CASE("a request gets the response with its opaque", "[remoting_transport][connection]") {
    rmq_test::FakeServer server(echo);
    rmq::detail::RemotingClient client(fast_options());
    const auto r = client.invoke_sync(server.address(), request(105, "TopicA"), 5000);
    CHECK(r.is_response());
    CHECK(r.code == 0);
    CHECK(r.remark == "TopicA");
    const auto got = server.received();
    REQUIRE(got.size() == 1);
    CHECK(got[0].code == 105);
    CHECK(got[0].flag == 0);
    CHECK(got[0].language == rmq::remoting::LanguageCode::Cpp);
    CHECK(got[0].version == rmq::remoting::version::v4_9_8);
    CHECK(got[0].opaque == r.opaque);
}

TEST_CASE("pipelined requests are matched by opaque even when answered out of order",
          "[remoting_transport][connection]") {
    std::mutex m;
    std::vector<Command> held;
    rmq_test::FakeServer server([&](rmq_test::FakeSession& s, const Command& req) {
        const std::lock_guard lock(m);
        held.push_back(req);
        if (held.size() == 3) {  // answer in reverse order, one of them in the binary header format
            for (auto it = held.rbegin(); it != held.rend(); ++it) {
                auto r = rmq_test::FakeSession::response_to(*it);
                r.remark = std::string(it->field("topic").value_or(""));
                s.send(r,
                       it == held.rbegin() ? rmq::remoting::SerializeType::RocketMQ
                                           : rmq::remoting::SerializeType::Json);
            }
        }
    });
    rmq::detail::RemotingClient client(fast_options());
    std::vector<std::future<Command>> futures;
    for (const char* t : {"one", "two", "three"}) {
        futures.push_back(std::async(std::launch::async, [&, t] {
            return client.invoke_sync(server.address(), request(14, t), 10000);
        }));
    }
    std::vector<std::string> remarks;
    for (auto& f : futures) {
        remarks.push_back(f.get().remark.value_or(""));
    }
    CHECK(remarks == std::vector<std::string>{"one", "two", "three"});
    CHECK(server.accepted() == 1);  // one shared connection per address
}

TEST_CASE("a burst of requests leaves in order, each once, in gather writes of many frames",
          "[remoting_transport][connection]") {
    std::atomic<int> answered{0};  // before the client: callbacks run until it is gone
    rmq_test::FakeServer server(echo);
    rmq::detail::RemotingClient client(fast_options());
    (void)client.invoke_sync(server.address(), request(14, "connect first"), 5000);
    constexpr int n = 600;
    for (int i = 0; i < n; ++i) {
        auto req = request(14, "t" + std::to_string(i));
        req.body = std::string(i % 50 == 0 ? 100'000 : 64, 'b');  // some frames pass the batch's byte cap
        client.invoke_async(server.address(), std::move(req), 10000, [&](auto resp, const auto& error) {
            if (!error && resp) {
                ++answered;
            }
        });
    }
    REQUIRE(server.wait_for([](const std::vector<Command>& got) { return got.size() >= n + 1; }));
    const auto got = server.received();
    REQUIRE(got.size() == n + 1);
    for (int i = 0; i < n; ++i) {
        INFO(i);
        CHECK(got[static_cast<std::size_t>(i) + 1].field("topic") ==
              std::optional<std::string_view>("t" + std::to_string(i)));
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (answered.load() < n && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    CHECK(answered.load() == n);
}

TEST_CASE("an unanswered request times out with rmq::Timeout, a late answer is dropped",
          "[remoting_transport][connection]") {
    std::atomic<bool> silent{true};
    std::shared_ptr<rmq_test::FakeSession> session;
    Command first;
    std::mutex m;
    rmq_test::FakeServer server([&](rmq_test::FakeSession& s, const Command& req) {
        if (silent.load()) {
            const std::lock_guard lock(m);
            first = req;
            return;
        }
        echo(s, req);
    });
    rmq::detail::RemotingClient client(fast_options());
    CHECK_THROWS_AS(client.invoke_sync(server.address(), request(11), 200), rmq::Timeout);
    // the late response to the timed-out request must not disturb the next one
    silent.store(false);
    Command late;
    {
        const std::lock_guard lock(m);
        late = rmq_test::FakeSession::response_to(first);
    }
    late.remark = "late";
    REQUIRE(server.wait_session());
    server.last_session()->send(late);
    const auto r = client.invoke_sync(server.address(), request(11, "fresh"), 5000);
    CHECK(r.remark == "fresh");
}

TEST_CASE("a oneway request carries flag bit 1 and expects nothing", "[remoting_transport][connection]") {
    rmq_test::FakeServer server(echo);
    rmq::detail::RemotingClient client(fast_options());
    client.invoke_oneway(server.address(), request(rc::update_consumer_offset, "oneway"));
    const auto r = client.invoke_sync(server.address(), request(14, "after"), 5000);
    CHECK(r.remark == "after");
    REQUIRE(server.wait_for([](const auto& got) { return got.size() == 2; }));
    const auto got = server.received();
    CHECK(got[0].code == rc::update_consumer_offset);
    CHECK(got[0].is_oneway());
    CHECK_FALSE(got[1].is_oneway());
}

TEST_CASE(
    "oneway requests not yet written are bounded: past client_oneway_semaphore_value a oneway send waits, "
    "then throws rmq::Timeout, and dropped frames give their permits back",
    "[remoting_transport][connection]") {
    // A peer that accepts connections (the kernel's backlog) and never reads: a few frames of 4 MiB fill
    // both sockets' buffers, after which nothing more is written.
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor silent(io, {boost::asio::ip::address_v4::loopback(), 0});
    const std::string silent_addr = fmt::format("127.0.0.1:{}", silent.local_endpoint().port());
    auto options = fast_options();
    options.client_oneway_semaphore_value = 2;
    rmq::detail::RemotingClient client(options);
    Command big = request(rc::update_consumer_offset, "big");
    big.body.assign(std::size_t{4} << 20, 'x');
    int queued = 0;
    bool refused = false;
    for (int i = 0; i < 16 && !refused; ++i) {
        try {
            client.invoke_oneway(silent_addr, big, 300);
            ++queued;
        } catch (const rmq::Timeout&) {
            refused = true;
        }
    }
    CHECK(refused);
    CHECK(queued <= 2 + 4);  // at most the permits beyond those already written into the socket buffers

    // Closing the connection drops its unwritten frames: their permits come back, the next oneway goes out.
    client.close_connection(silent_addr);
    rmq_test::FakeServer server(echo);
    client.invoke_oneway(server.address(), request(rc::update_consumer_offset, "after"), 2000);
    CHECK(server.wait_for([](const auto& got) { return got.size() == 1; }));
}

TEST_CASE("broker requests: oneway ones are handled and never answered, unsupported two-way ones get code 3",
          "[remoting_transport][connection]") {
    rmq_test::FakeServer server(echo);
    rmq::detail::RemotingClient client(fast_options());
    std::promise<std::string> notified;
    client.set_request_handler(
        [&](const std::string&, const Command& req, rmq::detail::Responder) -> rmq::detail::RequestReply {
            if (req.code == rc::notify_consumer_ids_changed) {
                notified.set_value(std::string(req.field("consumerGroup").value_or("")));
                Command ignored;  // an answer to a oneway request must be discarded by the connection
                return {ignored};
            }
            return {};
        });
    REQUIRE(client.invoke_sync(server.address(), request(34), 5000).code == 0);
    REQUIRE(server.wait_session());
    auto session = server.last_session();

    Command notify;
    notify.code = rc::notify_consumer_ids_changed;
    notify.flag = rmq::remoting::command_flag::oneway;
    notify.opaque = 7001;
    notify.language = rmq::remoting::LanguageCode::Java;
    notify.fields().set("consumerGroup", "cg");
    session->send(notify);
    auto f = notified.get_future();
    REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    CHECK(f.get() == "cg");

    Command odd;
    odd.code = 9999;
    odd.opaque = 7002;
    odd.language = rmq::remoting::LanguageCode::Java;
    session->send(odd, rmq::remoting::SerializeType::RocketMQ);
    REQUIRE(server.wait_for([](const auto& got) {
        return std::any_of(got.begin(), got.end(), [](const Command& c) { return c.is_response(); });
    }));
    const auto got = server.received();
    std::vector<Command> responses;
    std::copy_if(got.begin(), got.end(), std::back_inserter(responses), [](const Command& c) {
        return c.is_response();
    });
    REQUIRE(responses.size() == 1);  // nothing for the oneway notification
    CHECK(responses[0].opaque == 7002);
    CHECK(responses[0].code == rmq::response_code::request_code_not_supported);
    CHECK(responses[0].remark.value_or("").find("9999") != std::string::npos);
}

TEST_CASE("broker requests are answered in the serialization they arrived in (serializeTypeCurrentRPC)",
          "[remoting_transport][connection]") {
    using rmq::remoting::SerializeType;
    const auto client_type = GENERATE(SerializeType::Json, SerializeType::RocketMQ);
    INFO("client serialization " << static_cast<int>(client_type));
    rmq_test::FakeServer server(echo);
    auto options = fast_options();
    options.serialize_type = client_type;
    rmq::detail::RemotingClient client(options);
    // 307 is answered later, through the responder (as CONSUME_MESSAGE_DIRECTLY is), from another thread
    std::vector<std::thread> answering;

    struct Join {
        std::vector<std::thread>& threads;

        ~Join() {
            for (auto& t : threads) {
                t.join();
            }
        }
    } join{answering};

    client.set_request_handler([&](const std::string&,
                                   const Command& req,
                                   rmq::detail::Responder respond) -> rmq::detail::RequestReply {
        if (req.code != rc::get_consumer_running_info) {
            return {};
        }
        answering.emplace_back([respond = std::move(respond)] {
            Command answer;
            answer.body = "{}";
            respond(answer);
        });
        return {.answer = std::nullopt, .later = true};
    });
    REQUIRE(client.invoke_sync(server.address(), request(34), 5000).code == 0);
    REQUIRE(server.wait_session());
    auto session = server.last_session();
    // Handled (307) and unsupported (9999) requests, each in both serializations.
    int opaque = 8000;
    for (const int code : {rc::get_consumer_running_info, 9999}) {
        for (const auto type : {SerializeType::Json, SerializeType::RocketMQ}) {
            Command req;
            req.code = code;
            req.opaque = ++opaque;
            req.language = rmq::remoting::LanguageCode::Java;
            req.fields().set("consumerGroup", "cg");
            session->send(req, type);
        }
    }
    const auto responses = [](const std::vector<Command>& all) {
        std::vector<Command> out;
        std::copy_if(all.begin(), all.end(), std::back_inserter(out), [](const Command& c) {
            return c.is_response();
        });
        return out;
    };
    REQUIRE(server.wait_for([&](const auto& all) { return responses(all).size() == 4; }));
    const auto got = responses(server.received());
    REQUIRE(got.size() == 4);
    for (const auto& r : got) {
        INFO("opaque " << r.opaque);
        // Requests 8001 and 8003 went as JSON, 8002 and 8004 as ROCKETMQ.
        CHECK(r.serialize_type == (r.opaque % 2 == 1 ? SerializeType::Json : SerializeType::RocketMQ));
        CHECK(r.code == (r.opaque <= 8002 ? 0 : rmq::response_code::request_code_not_supported));
    }
    // The client's own requests keep the configured serialization.
    const auto all = server.received();
    const auto first_request =
        std::find_if(all.begin(), all.end(), [](const Command& c) { return !c.is_response(); });
    REQUIRE(first_request != all.end());
    CHECK(first_request->serialize_type == client_type);
}

TEST_CASE("a frame announced above 16 MiB closes the connection and fails pending requests",
          "[remoting_transport][connection]") {
    rmq_test::FakeServer server([](rmq_test::FakeSession& s, const Command& req) {
        if (req.code == 11) {
            std::string bytes(8, '\0');
            const std::uint32_t len = 16U * 1024U * 1024U + 1;  // frame of 16 MiB + 5 bytes
            bytes[0] = static_cast<char>(len >> 24);
            bytes[1] = static_cast<char>((len >> 16) & 0xFF);
            bytes[2] = static_cast<char>((len >> 8) & 0xFF);
            bytes[3] = static_cast<char>(len & 0xFF);
            s.send_raw(bytes);
            return;
        }
        echo(s, req);
    });
    rmq::detail::RemotingClient client(fast_options());
    try {
        (void)client.invoke_sync(server.address(), request(11), 20000);
        FAIL("expected the oversize frame to fail the request");
    } catch (const rmq::Timeout&) {
        FAIL("the request timed out instead of failing when the connection was closed");
    } catch (const rmq::Error& e) {
        CHECK(std::string(e.what()).find("frame") != std::string::npos);
    }
    // the client reconnects for the next request
    CHECK(client.invoke_sync(server.address(), request(14, "again"), 5000).remark == "again");
    CHECK(server.accepted() == 2);
}

TEST_CASE("a request frame above 16 MiB is refused before anything is sent",
          "[remoting_transport][connection]") {
    rmq_test::FakeServer server(echo);
    rmq::detail::RemotingClient client(fast_options());
    Command big = request(310);
    big.body.assign(16U * 1024U * 1024U, 'x');
    CHECK_THROWS_AS(client.invoke_sync(server.address(), big, 5000), rmq::remoting::CodecError);
    CHECK(client.invoke_sync(server.address(), request(14, "small"), 5000).remark == "small");
    REQUIRE(server.received().size() == 1);
    CHECK(server.received()[0].code == 14);
}

namespace {

/// Closes the connection on request code 11 (a peer going away mid-request); echoes everything else.
void close_on_11(rmq_test::FakeSession& s, const Command& req) {
    if (req.code == 11) {
        s.close_now();
        return;
    }
    echo(s, req);
}

}  // namespace

TEST_CASE("the peer closing the connection fails pending requests, the next request reconnects",
          "[remoting_transport][connection]") {
    rmq_test::FakeServer server(close_on_11);
    rmq::detail::RemotingClient client(fast_options());
    CHECK(client.invoke_sync(server.address(), request(14, "a"), 5000).remark == "a");
    try {
        (void)client.invoke_sync(server.address(), request(11), 20000);
        FAIL("expected an error");
    } catch (const rmq::Timeout&) {
        FAIL("timed out instead of failing at once");
    } catch (const rmq::Error&) {
    }
    CHECK(client.invoke_sync(server.address(), request(14, "b"), 5000).remark == "b");
    CHECK(server.accepted() == 2);
}

TEST_CASE(
    "after a refused connect, the next request connects again: a server that came back is reached at once",
    "[remoting_transport][connection]") {
    auto server = std::make_unique<rmq_test::FakeServer>(echo);
    const auto port = server->port();
    const auto addr = server->address();
    rmq::detail::RemotingClient client(fast_options());
    CHECK(client.invoke_sync(addr, request(14, "up"), 5000).remark == "up");
    server.reset();                // the peer goes away
    for (int i = 0; i < 2; ++i) {  // the connection is lost, then a connect is refused
        try {
            (void)client.invoke_sync(addr, request(14), 20000);
            FAIL("a request to a stopped server succeeded");
        } catch (const rmq::Timeout&) {
            FAIL("timed out instead of failing at once");
        } catch (const rmq::Error&) {
        }
    }
    server = std::make_unique<rmq_test::FakeServer>(echo, port);
    // no back-off: the very next request connects (it used to fail with "next attempt in N ms")
    CHECK(client.invoke_sync(addr, request(14, "back"), 5000).remark == "back");
}

TEST_CASE("requests made while a connect is in flight wait for it, one connection for all",
          "[remoting_transport][connection]") {
    rmq_test::FakeServer server(echo);
    rmq::detail::RemotingClient client(fast_options());
    std::vector<std::future<Command>> futures;
    for (int i = 0; i < 8; ++i) {
        futures.push_back(std::async(std::launch::async, [&, i] {
            return client.invoke_sync(server.address(), request(14, std::to_string(i)), 10000);
        }));
    }
    for (int i = 0; i < 8; ++i) {
        CHECK(futures[static_cast<std::size_t>(i)].get().remark == std::to_string(i));
    }
    CHECK(server.accepted() == 1);
}

TEST_CASE("the connection event hook hears a lost connection and its recovery, not the client's close",
          "[remoting_transport][connection]") {
    rmq_test::FakeServer server(close_on_11);
    std::mutex m;
    std::vector<std::string> events;
    rmq::detail::RemotingClient client(fast_options());
    client.set_connection_event_hook([&](const std::string& addr, bool connected) {
        const std::lock_guard lock(m);
        events.push_back(fmt::format("{} {}", connected ? "up" : "down", addr));
    });
    const auto snapshot = [&] {
        const std::lock_guard lock(m);
        return events;
    };
    CHECK(client.invoke_sync(server.address(), request(14, "x"), 5000).remark == "x");
    CHECK(snapshot().empty());  // the first connect is no recovery
    CHECK_THROWS_AS(client.invoke_sync(server.address(), request(11), 20000), rmq::Error);
    CHECK(client.invoke_sync(server.address(), request(14, "y"), 5000).remark == "y");
    // the hook runs on the io thread after the answer may have been delivered: wait for it
    for (int i = 0; i < 400 && snapshot().size() < 2; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    client.close_connection(server.address());
    client.shutdown();
    CHECK(snapshot() == std::vector<std::string>{"down " + server.address(), "up " + server.address()});
}

TEST_CASE("the connect hook's requests are written before queued ones after a reconnect",
          "[remoting_transport][connection]") {
    rmq_test::FakeServer server(close_on_11);
    rmq::detail::RemotingClient client(fast_options());
    client.set_connect_hook([](const std::string&) {
        std::vector<Command> v;
        v.push_back(request(rc::heart_beat, "hb"));
        return v;
    });
    CHECK(client.invoke_sync(server.address(), request(14, "x"), 5000).remark == "x");
    CHECK_THROWS_AS(client.invoke_sync(server.address(), request(11), 20000), rmq::Error);
    CHECK(client.invoke_sync(server.address(), request(14, "y"), 5000).remark == "y");
    std::vector<int> codes;
    for (const auto& c : server.received()) {
        codes.push_back(c.code);
    }
    CHECK(codes == std::vector<int>{14, 11, rc::heart_beat, 14});
}

TEST_CASE("requests are signed with ACL credentials", "[remoting_transport][connection]") {
    rmq_test::FakeServer server(echo);
    rmq::detail::RemotingClient client(fast_options(),
                                       rmq::remoting::AclCredentials{"rocketmq2", "12345678", {}});
    Command c;
    c.code = rc::get_routeinfo_by_topic;
    c.fields().set("topic", "TopicTest");
    c.fields().set("acceptStandardJsonOnly", "true");
    REQUIRE(client.invoke_sync(server.address(), c, 5000).code == 0);
    const auto got = server.received();
    REQUIRE(got.size() == 1);
    CHECK(got[0].field("AccessKey") == "rocketmq2");
    CHECK(got[0].field("Signature") ==
          "EvCVn1/pIhQGNcZnAZsj264sC2k=");  // the worked ACL example of tests/unit/remoting/acl_test.cpp
}

TEST_CASE("shutting the client down fails pending requests", "[remoting_transport][connection]") {
    rmq_test::FakeServer server([](rmq_test::FakeSession&, const Command&) {});
    auto client = std::make_unique<rmq::detail::RemotingClient>(fast_options());
    std::promise<std::exception_ptr> done;
    client->invoke_async(server.address(),
                         request(11),
                         60000,
                         [&](std::optional<Command>, std::exception_ptr e) { done.set_value(e); });
    REQUIRE(server.wait_for([](const auto& got) { return !got.empty(); }));
    client.reset();
    auto f = done.get_future();
    REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    CHECK(f.get() != nullptr);
}
