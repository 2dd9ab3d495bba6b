// TLS in the remoting connection layer against an in-process TLS fake server, with certificates made at test
// time (test_pki.hpp): requests over TLS, server verification, SNI, mutual TLS, and the failures that must be
// clear and bounded (wrong CA, plaintext client at a TLS server, TLS client at a plaintext server).

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>

#include "fake_server.hpp"
#include "test_pki.hpp"

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/transport/remoting_config.hpp>

#include <rmq/detail/net/client.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace tls_test {

namespace {

using rmq::remoting::Command;
namespace ssl = boost::asio::ssl;

Command request(int code, std::string topic = "T") {
    Command c;
    c.code = code;
    c.fields().set("topic", std::move(topic));
    return c;
}

void echo(rmq_test::FakeSession& s, const Command& req) {
    if (req.is_oneway() || req.is_response()) {
        return;
    }
    auto r = rmq_test::FakeSession::response_to(req);
    r.remark = std::string(req.field("topic").value_or(""));
    r.body = req.body;
    s.send(r);
}

/// A TLS server context with the PKI's server certificate; with `client_ca`, client certificates signed by
/// it are required.
std::shared_ptr<ssl::context> server_context(const rmq_test::TestPki& pki,
                                             const std::string& client_ca = {}) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    ctx->use_certificate_chain_file(pki.server_cert());
    ctx->use_private_key_file(pki.server_key_path(), ssl::context::pem);
    if (!client_ca.empty()) {
        ctx->load_verify_file(client_ca);
        ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    }
    return ctx;
}

rmq::detail::ConnectionOptions tls_options(const std::string& trust = {}) {
    rmq::detail::ConnectionOptions o;
    o.connect_timeout_millis = 2000;
    o.tls.enable = true;
    o.tls.client_trust_cert_path = trust;
    return o;
}

std::string what_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no exception)";
}

}  // namespace

TEST_CASE("requests and responses over TLS, the server verified against the CA file",
          "[remoting_transport][tls]") {
    const rmq_test::TestPki pki;
    rmq_test::FakeServer server(echo, 0, server_context(pki));
    rmq::detail::RemotingClient client(tls_options(pki.ca_cert()));
    for (int i = 0; i < 3; ++i) {
        Command req = request(105, fmt::format("Topic{}", i));
        req.body = std::string(70000, static_cast<char>('a' + i));  // several TLS records
        const auto r = client.invoke_sync(server.address(), req, 5000);
        CHECK(r.code == 0);
        CHECK(r.remark == fmt::format("Topic{}", i));
        CHECK(r.body == req.body);
    }
    CHECK(server.accepted() == 1);
    CHECK(server.server_names() == std::vector<std::string>{""});  // no SNI for an IP address
    CHECK(server.failures().empty());
}

TEST_CASE("TLS: the host name goes as SNI, or the configured server_name", "[remoting_transport][tls]") {
    const rmq_test::TestPki pki;
    rmq_test::FakeServer server(echo, 0, server_context(pki));
    const std::string by_name = fmt::format("localhost:{}", server.port());
    {
        rmq::detail::RemotingClient client(tls_options(pki.ca_cert()));
        CHECK(client.invoke_sync(by_name, request(105), 5000).code == 0);
    }
    {
        auto o = tls_options(pki.ca_cert());
        o.tls.server_name = "broker-a.example";
        rmq::detail::RemotingClient client(o);
        CHECK(client.invoke_sync(server.address(), request(105), 5000).code == 0);
    }
    CHECK(server.server_names() == std::vector<std::string>{"localhost", "broker-a.example"});
}

TEST_CASE("TLS: a server certificate from another CA fails with a verification error, nothing sent",
          "[remoting_transport][tls]") {
    const rmq_test::TestPki pki;
    rmq_test::FakeServer server(echo, 0, server_context(pki));
    rmq::detail::RemotingClient client(tls_options(pki.other_ca_cert()));
    const auto t0 = std::chrono::steady_clock::now();
    std::string what;
    try {
        (void)client.invoke_sync(server.address(), request(105), 5000);
    } catch (const rmq::TlsError& e) {
        what = e.what();
    }
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(4));  // not the request timeout
    INFO(what);
    CHECK(what.find("TLS handshake with " + server.address() + " failed") != std::string::npos);
    CHECK(what.find("certificate verify failed: unable to get local issuer certificate") !=
          std::string::npos);
    // a second request tries again, and fails the same way (no plaintext fallback)
    CHECK_THROWS_AS(client.invoke_sync(server.address(), request(105), 5000), rmq::TlsError);
    CHECK(server.received().empty());
    CHECK(server.server_names().empty());
}

TEST_CASE("TLS: without verification (tls.client.authServer false, or test mode) any server is accepted",
          "[remoting_transport][tls]") {
    const rmq_test::TestPki pki;
    rmq_test::FakeServer server(echo, 0, server_context(pki));
    SECTION("client_auth_server = false, a trust file that would fail") {
        auto o = tls_options(pki.other_ca_cert());
        o.tls.client_auth_server = false;
        rmq::detail::RemotingClient client(o);
        CHECK(client.invoke_sync(server.address(), request(105), 5000).code == 0);
    }
    SECTION("no trust file, client_auth_server unset") {
        rmq::detail::RemotingClient client(tls_options());
        CHECK(client.invoke_sync(server.address(), request(105), 5000).code == 0);
    }
    SECTION("test_mode_enable, even with client_auth_server") {
        auto o = tls_options(pki.other_ca_cert());
        o.tls.client_auth_server = true;
        o.tls.test_mode_enable = true;
        rmq::detail::RemotingClient client(o);
        CHECK(client.invoke_sync(server.address(), request(105), 5000).code == 0);
    }
}

TEST_CASE("TLS: client_auth_server without a trust file uses the system CAs (which reject the test CA)",
          "[remoting_transport][tls]") {
    const rmq_test::TestPki pki;
    rmq_test::FakeServer server(echo, 0, server_context(pki));
    auto o = tls_options();
    o.tls.client_auth_server = true;
    rmq::detail::RemotingClient client(o);
    CHECK_THROWS_AS(client.invoke_sync(server.address(), request(105), 5000), rmq::TlsError);
}

TEST_CASE("TLS: a plaintext client at a TLS server fails within the request timeout",
          "[remoting_transport][tls]") {
    const rmq_test::TestPki pki;
    rmq_test::FakeServer server(echo, 0, server_context(pki));
    rmq::detail::ConnectionOptions plain;
    plain.connect_timeout_millis = 2000;
    rmq::detail::RemotingClient client(plain);
    const auto t0 = std::chrono::steady_clock::now();
    const std::string what = what_of([&] { (void)client.invoke_sync(server.address(), request(105), 3000); });
    INFO(what);
    CHECK(what != "(no exception)");
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(6));
    CHECK(server.wait_failures(1));
    CHECK(server.received().empty());
}

TEST_CASE("TLS: a TLS client at a plaintext server fails with a handshake error, nothing sent in clear",
          "[remoting_transport][tls]") {
    const rmq_test::TestPki pki;
    rmq_test::FakeServer server(echo);
    rmq::detail::RemotingClient client(tls_options(pki.ca_cert()));
    std::string what;
    try {
        (void)client.invoke_sync(server.address(), request(105), 3000);
    } catch (const rmq::TlsError& e) {
        what = e.what();
    }
    INFO(what);
    CHECK(what.find("TLS handshake with " + server.address() + " failed") != std::string::npos);
    CHECK(server.received().empty());  // the ClientHello was refused as a frame, no request went in clear
    REQUIRE(server.wait_failures(1));
    CHECK(server.failures()[0].find("frame:") == 0);
}

TEST_CASE("TLS: a server answering in TLS to a plaintext frame is named as requiring TLS",
          "[remoting_transport][tls]") {
    // a peer whose first bytes are a TLS alert record (what a TLS server may answer to garbage)
    rmq_test::FakeServer server([](rmq_test::FakeSession& s, const Command&) {
        s.send_raw(std::string("\x15\x03\x03\x00\x02\x02\x32", 7));
    });
    rmq::detail::ConnectionOptions plain;
    rmq::detail::RemotingClient client(plain);
    const std::string what = what_of([&] { (void)client.invoke_sync(server.address(), request(105), 3000); });
    INFO(what);
    CHECK(what.find("requires TLS") != std::string::npos);
}

TEST_CASE("TLS: mutual TLS with a client certificate", "[remoting_transport][tls]") {
    const rmq_test::TestPki pki;
    rmq_test::FakeServer server(echo, 0, server_context(pki, pki.ca_cert()));
    SECTION("certificate and key") {
        auto o = tls_options(pki.ca_cert());
        o.tls.client_cert_path = pki.client_cert();
        o.tls.client_key_path = pki.client_key_path();
        rmq::detail::RemotingClient client(o);
        CHECK(client.invoke_sync(server.address(), request(105, "mtls"), 5000).remark == "mtls");
    }
    SECTION("an encrypted key with its password") {
        auto o = tls_options(pki.ca_cert());
        o.tls.client_cert_path = pki.client_cert();
        o.tls.client_key_path = pki.client_key_encrypted();
        o.tls.client_key_password = rmq_test::TestPki::key_password();
        rmq::detail::RemotingClient client(o);
        CHECK(client.invoke_sync(server.address(), request(105, "mtls"), 5000).remark == "mtls");
    }
    SECTION("no client certificate: refused by the server") {
        rmq::detail::RemotingClient client(tls_options(pki.ca_cert()));
        // TLS 1.3: the client's handshake completes before the server checks; the failure then comes as an
        // alert on the first read
        CHECK_THROWS_AS(client.invoke_sync(server.address(), request(105), 3000), rmq::Error);
        CHECK(server.wait_failures(1));
        CHECK(server.received().empty());
    }
}

TEST_CASE("TLS: a reconnect handshakes again", "[remoting_transport][tls]") {
    const rmq_test::TestPki pki;
    rmq_test::FakeServer server(echo, 0, server_context(pki));
    rmq::detail::RemotingClient client(tls_options(pki.ca_cert()));
    std::promise<void> lost;
    client.set_connection_event_hook([&lost](const std::string&, bool connected) {
        if (!connected) {
            lost.set_value();
        }
    });
    CHECK(client.invoke_sync(server.address(), request(105, "one"), 5000).remark == "one");
    REQUIRE(server.wait_session());
    server.last_session()->close();
    REQUIRE(lost.get_future().wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    const auto remark = client.invoke_sync(server.address(), request(105, "two"), 5000).remark;
    CHECK(remark == "two");
    CHECK(server.accepted() == 2);
    CHECK(server.server_names().size() == 2);
}

TEST_CASE("TLS: unusable certificate settings are refused when the client is made",
          "[remoting_transport][tls]") {
    const rmq_test::TestPki pki;
    SECTION("a missing trust file") {
        const std::string what =
            what_of([&] { rmq::detail::RemotingClient c(tls_options("/nonexistent/ca.pem")); });
        CHECK(what.find("tls.client.trustCertPath) '/nonexistent/ca.pem' cannot be read") !=
              std::string::npos);
        CHECK_THROWS_AS(rmq::detail::RemotingClient(tls_options("/nonexistent/ca.pem")), rmq::TlsError);
    }
    SECTION("a certificate without its key") {
        auto o = tls_options(pki.ca_cert());
        o.tls.client_cert_path = pki.client_cert();
        CHECK_THROWS_AS(rmq::detail::RemotingClient(o), rmq::InvalidArgument);
    }
    SECTION("an encrypted key with a wrong password") {
        auto o = tls_options(pki.ca_cert());
        o.tls.client_cert_path = pki.client_cert();
        o.tls.client_key_path = pki.client_key_encrypted();
        o.tls.client_key_password = "wrong";
        const std::string what = what_of([&] { rmq::detail::RemotingClient c(o); });
        CHECK(what.find("tls.client.keyPath") != std::string::npos);
    }
    SECTION("TLS off: the files are not looked at") {
        auto o = tls_options("/nonexistent/ca.pem");
        o.tls.enable = false;
        CHECK_NOTHROW(rmq::detail::RemotingClient(o));
    }
}

}  // namespace tls_test
