// A consumer whose broker refuses connections: the failures it logs are summarised instead of one line per
// attempt, and nothing of its ACL credentials (secret key, signatures) reaches the log.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <chrono>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/consumer.hpp>
#include <rmq/log.hpp>
#include <rmq/offset_store/memory.hpp>
#include <rmq/remoting/bodies.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using Consumer =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::MemoryOffsetStore, rmq::RemotingTransport>;

// A port nothing listens on: bound, never listened, closed again.
std::string refused_address() {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor acceptor(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    const auto port = acceptor.local_endpoint().port();
    acceptor.close();
    return fmt::format("127.0.0.1:{}", port);
}

}  // namespace

TEST_CASE("a broker that refuses connections makes a few summarised lines, never the ACL secret",
          "[remoting_transport][log]") {
    const std::string broker = refused_address();
    rmq_test::FakeServer namesrv;
    namesrv.set_handler([&](rmq_test::FakeSession& s, const rmq::remoting::Command& req) {
        if (req.code == rmq::remoting::request_code::get_routeinfo_by_topic) {
            auto r = rmq_test::FakeSession::response_to(req, 0);
            r.body = rmq_test::route_json(broker);
            s.send(r);
        }
    });
    std::mutex mutex;
    std::vector<std::string> lines;
    rmq::set_log_handler([&](rmq::LogLevel, std::string_view m) {
        const std::lock_guard lock(mutex);
        lines.emplace_back(m);
    });
    const std::string secret = "S3cret-never-logged-7c1e";
    rmq::RemotingConfig rc;
    rc.namesrv_addr = namesrv.address();
    rc.credentials = rmq::AclCredentials{
        .access_key = "rmq-log-test", .secret_key = secret, .security_token = std::nullopt};
    rmq::ConsumerConfig cfg{.consumer_group = "log_flood_group"};
    cfg.rebalance_interval = 20;
    cfg.heartbeat_broker_interval = 20;
    cfg.poll_name_server_interval = 20;
    cfg.persist_consumer_offset_interval = 20;
    {
        Consumer consumer(rmq::RemotingTransport{rc}, cfg);
        consumer.subscribe("LogFloodTopic", "*");
        consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
        consumer.start();
        // ~3 s of failing every 20 ms: without the summary that is hundreds of lines.
        std::this_thread::sleep_for(std::chrono::seconds(3));
        consumer.shutdown();
    }
    rmq::set_log_handler({});
    const std::lock_guard lock(mutex);
    INFO(fmt::format("{} lines:\n{}", lines.size(), fmt::join(lines, "\n")));
    REQUIRE_FALSE(lines.empty());
    CHECK(lines.size() <= 12);
    for (const auto& line : lines) {
        CHECK(line.find(secret) == std::string::npos);
        CHECK(line.find("Signature") == std::string::npos);
    }
}
