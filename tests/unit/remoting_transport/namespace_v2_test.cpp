// Namespace v2 (RemotingConfig::namespace_v2, Java's ClientConfig.namespaceV2 and NamespaceRpcHook): every
// request carries `nsd` and `ns`, added before the ACL signature so that the signature covers them; resource
// names go out as given.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <optional>
#include <string>
#include <string_view>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/remoting/acl.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/transport/remoting.hpp>

namespace namespace_v2_test {

TEST_CASE("namespace_v2 puts nsd and ns on every request, inside the ACL signature",
          "[remoting_transport][namespace_v2]") {
    rmq_test::FakeServer broker;
    rmq_test::FakeServer namesrv;
    namesrv.set_handler([&](rmq_test::FakeSession& s, const rmq::remoting::Command& req) {
        auto r = rmq_test::FakeSession::response_to(req, 0);
        r.body = rmq_test::route_json(broker.address());
        s.send(std::move(r));
    });
    broker.set_handler([](rmq_test::FakeSession& s, const rmq::remoting::Command& req) {
        auto r = rmq_test::FakeSession::response_to(req, 0);
        r.fields().set("offset", "5");
        s.send(std::move(r));
    });
    const bool signed_requests = GENERATE(false, true);
    rmq::RemotingConfig config;
    config.namesrv_addr = namesrv.address();
    config.namespace_v2 = "tenant-a";
    if (signed_requests) {
        config.credentials =
            rmq::AclCredentials{.access_key = "ak", .secret_key = "sk-namespace", .security_token = {}};
    }
    rmq::RemotingTransport transport{config};
    (void)transport.topic_route("TopicNs");
    (void)transport.max_offset(rmq::MessageQueue{"TopicNs", "broker-a", 0});

    auto requests = namesrv.received();
    const auto to_broker = broker.received();
    requests.insert(requests.end(), to_broker.begin(), to_broker.end());
    REQUIRE(requests.size() == 2);
    for (const auto& req : requests) {
        INFO("request code " << req.code);
        CHECK(req.field("nsd") == std::optional<std::string_view>("true"));
        CHECK(req.field("ns") == std::optional<std::string_view>("tenant-a"));
        CHECK(req.field("topic") == std::optional<std::string_view>("TopicNs"));  // not prefixed
        if (signed_requests) {
            REQUIRE(req.field("Signature").has_value());
            CHECK(rmq::remoting::acl_signature(rmq::remoting::acl_signing_content(req), "sk-namespace") ==
                  *req.field("Signature"));
        }
    }
}

TEST_CASE("without namespace_v2 no request carries nsd or ns", "[remoting_transport][namespace_v2]") {
    rmq_test::FakeServer namesrv;
    namesrv.set_handler([&](rmq_test::FakeSession& s, const rmq::remoting::Command& req) {
        auto r = rmq_test::FakeSession::response_to(req, 0);
        r.body = rmq_test::route_json(namesrv.address());
        s.send(std::move(r));
    });
    rmq::RemotingConfig config;
    config.namesrv_addr = namesrv.address();
    rmq::RemotingTransport transport{config};
    (void)transport.topic_route("TopicNs");
    const auto requests = namesrv.received();
    REQUIRE(requests.size() == 1);
    CHECK_FALSE(requests[0].field("nsd").has_value());
    CHECK_FALSE(requests[0].field("ns").has_value());
}

}  // namespace namespace_v2_test
