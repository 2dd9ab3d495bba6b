// A broker that refuses signed requests with NO_PERMISSION (as 5.x authentication does for a wrong secret
// key, authorization for a missing ACL) or, like 4.x's ACL, with SYSTEM_ERROR and the AclException's text:
// rmq::AccessDenied naming the access key, a consumer that keeps retrying with a bounded number of log lines,
// and never the secret key or a signature in any of that text.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/consumer.hpp>
#include <rmq/error.hpp>
#include <rmq/log.hpp>
#include <rmq/offset_store/memory.hpp>
#include <rmq/producer.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using Consumer =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::MemoryOffsetStore, rmq::RemotingTransport>;

constexpr std::string_view secret = "S3cret-of-the-acl-test-5e2a";
constexpr std::string_view access_key = "rmq-acl-test";

/// How a broker refuses: 5.x's answer, 4.x's (its remoting layer's answer to the AclException its ACL hook
/// threw), or an error that is no refusal.
struct Refusal {
    int code;
    std::string remark;
};

const Refusal refusal_5x{rmq::response_code::no_permission, "check signature failed."};
const Refusal refusal_4x{
    rmq::response_code::system_error,
    "org.apache.rocketmq.acl.common.AclException: Check signature failed for "
    "accessKey=rmq-acl-test, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate("
    "PlainPermissionManager.java:683)"};
const Refusal system_error{
    rmq::response_code::system_error,
    "java.lang.NullPointerException, org.apache.rocketmq.broker.processor.X.y(X.java:1)"};

/// Routes every topic to `broker` (master) and `replica` (slave: heartbeats go to both, so one of them
/// failing is a partial failure); both answer everything with `refusal`. Counts the refused requests.
struct RefusingCluster {
    rmq_test::FakeServer namesrv;
    rmq_test::FakeServer broker;
    rmq_test::FakeServer replica;
    std::atomic<int> refused{0};

    explicit RefusingCluster(Refusal refusal = refusal_5x) {
        namesrv.set_handler([this](rmq_test::FakeSession& s, const rmq::remoting::Command& req) {
            if (req.code == rmq::remoting::request_code::get_routeinfo_by_topic) {
                auto r = rmq_test::FakeSession::response_to(req, 0);
                r.body = rmq_test::route_json(broker.address(), replica.address());
                s.send(r);
            }
        });
        for (auto* server : {&broker, &replica}) {
            server->set_handler([this, refusal](rmq_test::FakeSession& s, const rmq::remoting::Command& req) {
                if (req.is_response()) {
                    return;
                }
                auto r = rmq_test::FakeSession::response_to(req, refusal.code);
                r.remark = refusal.remark;
                ++refused;
                s.send(r);
            });
        }
    }

    rmq::RemotingConfig config(bool signed_requests = true) {
        rmq::RemotingConfig rc;
        rc.namesrv_addr = namesrv.address();
        if (signed_requests) {
            rc.credentials = rmq::AclCredentials{.access_key = std::string(access_key),
                                                 .secret_key = std::string(secret),
                                                 .security_token = std::nullopt};
        }
        return rc;
    }
};

}  // namespace

TEST_CASE("a NO_PERMISSION answer (5.x) or an AclException (4.x) is rmq::AccessDenied naming the access key, "
          "never the secret",
          "[remoting_transport][acl]") {
    const bool v4 = GENERATE(false, true);
    const Refusal& refusal = v4 ? refusal_4x : refusal_5x;
    INFO(refusal.remark);
    RefusingCluster cluster(refusal);
    for (const bool signed_requests : {true, false}) {
        INFO(signed_requests);
        rmq::Producer<rmq::RemotingTransport> producer(
            rmq::RemotingTransport{cluster.config(signed_requests)},
            rmq::ProducerConfig{.producer_group = "acl_pg"});
        producer.start();
        std::optional<int> code;
        std::string what;
        try {
            (void)producer.send(rmq::Message("AclTopic", "TagA", "k", "body"));
        } catch (const rmq::AccessDenied& e) {
            code = e.code();
            what = e.what();
        }
        producer.shutdown();
        INFO(what);
        REQUIRE(code == refusal.code);  // the broker's code, whichever it was
        CHECK(what.find(refusal.remark) != std::string::npos);
        CHECK((what.find(fmt::format("request signed with access key {}", access_key)) !=
               std::string::npos) == signed_requests);
        CHECK(what.find(secret) == std::string::npos);
        CHECK(what.find("Signature") == std::string::npos);
    }
}

TEST_CASE("a SYSTEM_ERROR that is no AclException stays a plain rmq::BrokerError, naming no access key",
          "[remoting_transport][acl]") {
    RefusingCluster cluster(system_error);
    rmq::Producer<rmq::RemotingTransport> producer(rmq::RemotingTransport{cluster.config()},
                                                   rmq::ProducerConfig{.producer_group = "acl_pg"});
    producer.start();
    std::optional<int> code;
    std::string what;
    bool denied = false;
    try {
        (void)producer.send(rmq::Message("AclTopic", "TagA", "k", "body"));
    } catch (const rmq::AccessDenied& e) {
        denied = true;
        what = e.what();
    } catch (const rmq::BrokerError& e) {
        code = e.code();
        what = e.what();
    }
    producer.shutdown();
    INFO(what);
    CHECK_FALSE(denied);
    REQUIRE(code == rmq::response_code::system_error);
    CHECK(what.find(system_error.remark) != std::string::npos);
    CHECK(what.find("access key") == std::string::npos);
}

TEST_CASE("a consumer whose requests are refused keeps retrying with a few lines naming the access key",
          "[remoting_transport][acl][log]") {
    RefusingCluster cluster(GENERATE(refusal_5x, refusal_4x));
    std::mutex mutex;
    std::vector<std::string> lines;
    rmq::set_log_handler([&](rmq::LogLevel, std::string_view m) {
        const std::lock_guard lock(mutex);
        lines.emplace_back(m);
    });
    rmq::ConsumerConfig cfg{.consumer_group = "acl_group"};
    cfg.rebalance_interval = 20;
    cfg.heartbeat_broker_interval = 20;
    cfg.poll_name_server_interval = 20;
    cfg.persist_consumer_offset_interval = 20;
    int refused_at_start = 0;
    {
        Consumer consumer(rmq::RemotingTransport{cluster.config()}, cfg);
        consumer.subscribe("AclTopic", "*");
        consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
        consumer.start();
        refused_at_start = cluster.refused.load();
        // ~3 s of refusals every 20 ms: without the summary that is hundreds of lines.
        std::this_thread::sleep_for(std::chrono::seconds(3));
        consumer.shutdown();
    }
    rmq::set_log_handler({});
    const std::lock_guard lock(mutex);
    INFO(fmt::format("{} lines, {} requests refused ({} by the end of start()):\n{}",
                     lines.size(),
                     cluster.refused.load(),
                     refused_at_start,
                     fmt::join(lines, "\n")));
    CHECK(cluster.refused.load() >= refused_at_start + 10);  // it kept trying
    REQUIRE_FALSE(lines.empty());
    CHECK(lines.size() <= 12);
    bool named = false;
    for (const auto& line : lines) {
        named = named || line.find(fmt::format("access key {}", access_key)) != std::string::npos;
        CHECK(line.find(secret) == std::string::npos);
        CHECK(line.find("Signature") == std::string::npos);
    }
    CHECK(named);
}
