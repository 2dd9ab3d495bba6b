// A consumer over rmq::RemotingTransport when a broker goes away and comes back: the lost (and the regained)
// connection makes the transport re-read the routes at once and the consumer rebalance on the change, within
// seconds, not at the next route refresh (30 s) or periodic rebalance.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fake_server.hpp"
#include "route_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <rmq/consumer.hpp>
#include <rmq/log.hpp>
#include <rmq/offset_store/memory.hpp>
#include <rmq/remoting/bodies.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/transport/in_process.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using Consumer =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::MemoryOffsetStore, rmq::RemotingTransport>;
using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;

static_assert(rmq::HasRouteChangeHandler<rmq::RemotingTransport>);
static_assert(!rmq::HasRouteChangeHandler<rmq::InProcessTransport>);  // optional: not every transport has it

/// The route of RouteWatchTopic, encoded as the NameServer sends it.
std::string route(const std::vector<std::pair<std::string, std::string>>& brokers) {
    return rmq::remoting::encode_topic_route_data(rmq_test::route_of(brokers));
}

/// A broker: the consumer list names the client ids it heard heartbeats from (a new one is notified, after
/// the heartbeat's answer); offsets are 0; pulls are never answered (a long poll that does not end during the
/// test).
struct Broker {
    std::mutex mutex;
    std::vector<std::string> clients;
    std::unique_ptr<rmq_test::FakeServer> server;

    void start(std::uint16_t port = 0) {
        server = std::make_unique<rmq_test::FakeServer>(
            [this](rmq_test::FakeSession& s, const Command& req) { answer(s, req); }, port);
    }

    void answer(rmq_test::FakeSession& s, const Command& req) {
        if (req.is_response() || req.code == rc::pull_message) {
            return;
        }
        auto r = rmq_test::FakeSession::response_to(req, 0);
        const std::lock_guard lock(mutex);
        if (req.code == rc::heart_beat) {
            const auto id = nlohmann::json::parse(req.body).value("clientID", "");
            if (std::find(clients.begin(), clients.end(), id) == clients.end()) {
                clients.push_back(id);
                Command notify;  // as a broker does when a group's membership changes
                notify.code = rc::notify_consumer_ids_changed;
                notify.flag = rmq::remoting::command_flag::oneway;
                notify.fields().set("consumerGroup", "route_watch_group");
                s.send(r);
                s.send(notify);
                return;
            }
        } else if (req.code == rc::get_consumer_list_by_group) {
            r.body = nlohmann::json{{"consumerIdList", clients}}.dump();
        } else if (req.code == rc::query_consumer_offset || req.code == rc::get_max_offset) {
            r.fields().set("offset", "0");
        }
        s.send(r);
    }
};

/// Queues of RouteWatchTopic on `broker` (the NameServer answers the retry topic with the same route).
std::size_t queues_on(const std::vector<rmq::MessageQueue>& mqs, const std::string& broker) {
    return static_cast<std::size_t>(std::count_if(mqs.begin(), mqs.end(), [&](const auto& mq) {
        return mq.topic == "RouteWatchTopic" && mq.broker_name == broker;
    }));
}

}  // namespace

TEST_CASE("a lost broker connection re-reads the routes and the consumer rebalances within seconds, so does "
          "the broker's return",
          "[remoting_transport][route_watch]") {
    Broker a;
    Broker b;
    a.start();
    b.start();
    const auto a_port = a.server->port();
    const std::string a_addr = a.server->address();
    const std::string b_addr = b.server->address();
    std::mutex route_mutex;
    std::string current = route({{"broker-a", a_addr}, {"broker-b", b_addr}});
    rmq_test::FakeServer namesrv([&](rmq_test::FakeSession& s, const Command& req) {
        if (req.code == rc::get_routeinfo_by_topic) {
            auto r = rmq_test::FakeSession::response_to(req, 0);
            const std::lock_guard lock(route_mutex);
            r.body = current;
            s.send(r);
        }
    });
    const auto set_route = [&](std::string r) {
        const std::lock_guard lock(route_mutex);
        current = std::move(r);
    };

    std::mutex log_mutex;
    std::vector<std::string> log;
    rmq::set_log_handler([&](rmq::LogLevel, std::string_view m) {
        const std::lock_guard lock(log_mutex);
        log.emplace_back(m);
    });
    const auto log_text = [&] {
        const std::lock_guard lock(log_mutex);
        return fmt::format("log:\n{}", fmt::join(log, "\n"));
    };

    rmq::RemotingConfig rc;
    rc.namesrv_addr = namesrv.address();
    rmq::ConsumerConfig cfg{.consumer_group = "route_watch_group"};
    cfg.rebalance_interval = 120000;  // neither the periodic rebalance nor the 30 s route refresh helps here
    Consumer consumer(rmq::RemotingTransport{rc}, cfg);
    consumer.subscribe("RouteWatchTopic", "*");
    consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    const auto wait_until = [&](auto pred, std::chrono::seconds limit) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (!pred(consumer.assigned_queues())) {
            if (std::chrono::steady_clock::now() > deadline) {
                return false;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return true;
    };
    const auto both = [](const auto& mqs) {
        return queues_on(mqs, "broker-a") == 4 && queues_on(mqs, "broker-b") == 4;
    };
    const auto require = [&](bool ok) {
        INFO(log_text());
        INFO(fmt::format("assigned: {}", consumer.assigned_queues().size()));
        REQUIRE(ok);
    };
    require(wait_until(both, std::chrono::seconds(20)));

    // broker-a dies; the NameServer drops it from the route
    set_route(route({{"broker-b", b_addr}}));
    a.server.reset();
    require(
        wait_until([](const auto& mqs) { return queues_on(mqs, "broker-a") == 0; }, std::chrono::seconds(8)));

    // broker-a is back on its port and in the route: the watch (still running) sees it
    a.start(a_port);
    set_route(route({{"broker-a", a_addr}, {"broker-b", b_addr}}));
    require(wait_until(both, std::chrono::seconds(8)));
    consumer.shutdown();
    rmq::set_log_handler({});
}

// Issue 30 §1: a member that starts while broker-b is down reads a route without it and never has a
// connection to broker-b to lose or regain, so neither a reconnect nor the route watch tells it when broker-b
// is back; the other members (which saw it come back) then count broker-b's queues and this member, which
// still owns its broker-a-only share: two owners per queue until the 30 s route refresh. The transport
// re-reads the routes every second while a consumer is registered, so the member heartbeats broker-b and
// rebalances within about a second.
TEST_CASE("a member that started while a broker was down heartbeats it and rebalances within seconds of its "
          "return",
          "[remoting_transport][route_watch][broker_return]") {
    Broker a;
    a.start();
    const std::string a_addr = a.server->address();
    std::mutex route_mutex;
    std::string current = route({{"broker-a", a_addr}});  // broker-b is down: the NameServer lists only a
    rmq_test::FakeServer namesrv([&](rmq_test::FakeSession& s, const Command& req) {
        if (req.code == rc::get_routeinfo_by_topic) {
            auto r = rmq_test::FakeSession::response_to(req, 0);
            const std::lock_guard lock(route_mutex);
            r.body = current;
            s.send(r);
        }
    });

    rmq::RemotingConfig rc;
    rc.namesrv_addr = namesrv.address();
    rmq::ConsumerConfig cfg{.consumer_group = "route_watch_group"};
    cfg.rebalance_interval = 120000;  // neither the periodic rebalance nor the 30 s route refresh helps here
    Consumer consumer(rmq::RemotingTransport{rc}, cfg);
    consumer.subscribe("RouteWatchTopic", "*");
    consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    const auto waited = [](auto pred,
                           std::chrono::milliseconds limit) -> std::optional<std::chrono::milliseconds> {
        const auto begin = std::chrono::steady_clock::now();
        while (!pred()) {
            if (std::chrono::steady_clock::now() - begin > limit) {
                return std::nullopt;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                     begin);
    };
    REQUIRE(waited([&] { return queues_on(consumer.assigned_queues(), "broker-a") == 4; },
                   std::chrono::seconds(20)));

    // broker-b comes back and registers with the NameServer
    Broker b;
    b.start();
    {
        const std::lock_guard lock(route_mutex);
        current = route({{"broker-a", a_addr}, {"broker-b", b.server->address()}});
    }
    const auto back = std::chrono::steady_clock::now();
    const auto heartbeat = waited(
        [&] {
            const std::lock_guard lock(b.mutex);
            return !b.clients.empty();
        },
        std::chrono::seconds(5));
    const auto rebalanced = waited(
        [&] {
            const auto mqs = consumer.assigned_queues();
            return queues_on(mqs, "broker-a") == 4 && queues_on(mqs, "broker-b") == 4;
        },
        std::chrono::seconds(5));
    const auto since_back =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - back);
    consumer.shutdown();
    REQUIRE(heartbeat.has_value());
    REQUIRE(rebalanced.has_value());
    INFO(fmt::format("heartbeat after {} ms, rebalanced {} ms after broker-b's return",
                     heartbeat->count(),
                     since_back.count()));
    CHECK(heartbeat->count() <= 2000);
    CHECK(since_back.count() <= 2500);
}

namespace {

/// A consumer's heartbeat for RouteWatchTopic, as a consumer sends it.
rmq::HeartbeatData consumer_heartbeat(const std::string& client_id) {
    rmq::SubscriptionData sd;
    sd.topic = "RouteWatchTopic";
    sd.sub_string = "*";
    rmq::ConsumerData cd;
    cd.group_name = "route_watch_group";
    cd.subscription_data_set.push_back(sd);
    return rmq::HeartbeatData{client_id, {cd}, {}};
}

/// A NameServer whose answer for every topic is the route set last.
struct NameServer {
    std::mutex mutex;
    std::string current;
    rmq_test::FakeServer server{[this](rmq_test::FakeSession& s, const Command& req) {
        if (req.code == rc::get_routeinfo_by_topic) {
            auto r = rmq_test::FakeSession::response_to(req, 0);
            const std::lock_guard lock(mutex);
            r.body = current;
            s.send(r);
        }
    }};

    void set(std::string r) {
        const std::lock_guard lock(mutex);
        current = std::move(r);
    }
};

}  // namespace

// Issue 30 §1: one broker's member list lacks a member that has not reached it yet (it came back from a
// restart, or the member started during its outage); the other members would then split the queues without
// that member while it takes its own share. The list is the union of every broker's answer.
TEST_CASE("the group's member list is the union of the brokers' answers, a broker that fails passed over",
          "[remoting_transport][route_watch][member_union]") {
    Broker a;
    Broker b;
    a.start();
    b.start();
    a.clients = {"x", "y"};
    b.clients = {"y", "z"};
    NameServer namesrv;
    namesrv.set(route({{"broker-a", a.server->address()}, {"broker-b", b.server->address()}}));
    rmq::RemotingConfig rc;
    rc.namesrv_addr = namesrv.server.address();
    rmq::RemotingTransport transport(rc);
    CHECK(transport.consumer_id_list("RouteWatchTopic", "route_watch_group") ==
          std::vector<std::string>{"x", "y", "z"});
    b.server.reset();
    CHECK(transport.consumer_id_list("RouteWatchTopic", "route_watch_group") ==
          std::vector<std::string>{"x", "y"});
}

// A broker that was down (its connection lost) and is back in the route forgot this client; a member with
// no queue on it (more members than queues) sends it nothing that would reconnect and re-send the
// heartbeats, so its member list would lack this member until the 30 s refresh. The route change
// heartbeats every broker of the route.
TEST_CASE("a broker back in the route hears the heartbeats within seconds though nothing else connects to it",
          "[remoting_transport][route_watch][broker_return]") {
    Broker a;
    Broker b;
    a.start();
    b.start();
    const auto b_port = b.server->port();
    const std::string a_addr = a.server->address();
    const std::string b_addr = b.server->address();
    NameServer namesrv;
    namesrv.set(route({{"broker-a", a_addr}, {"broker-b", b_addr}}));
    rmq::RemotingConfig rc;
    rc.namesrv_addr = namesrv.server.address();
    rmq::RemotingTransport transport(rc);
    transport.heartbeat(consumer_heartbeat("member-1"));
    const auto heard = [](Broker& broker) {
        const std::lock_guard lock(broker.mutex);
        return !broker.clients.empty();
    };
    REQUIRE(heard(a));
    REQUIRE(heard(b));

    // broker-b dies (the NameServer drops it), then comes back knowing nobody
    namesrv.set(route({{"broker-a", a_addr}}));
    b.server.reset();
    {
        const std::lock_guard lock(b.mutex);
        b.clients.clear();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the outage: the route watch reads it
    b.start(b_port);
    namesrv.set(route({{"broker-a", a_addr}, {"broker-b", b_addr}}));
    const auto back = std::chrono::steady_clock::now();
    while (!heard(b) && std::chrono::steady_clock::now() - back < std::chrono::seconds(5)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - back);
    INFO(fmt::format("broker-b heard the heartbeat {} ms after its return", waited.count()));
    CHECK(heard(b));
    CHECK(waited.count() <= 2500);
}
