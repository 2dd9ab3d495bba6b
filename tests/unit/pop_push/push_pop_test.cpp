// The push consumer's POP mode (ConsumerConfig::message_request_mode Pop, detail/pop_consumer/) on the
// embedded broker with a ManualClock: two members sharing the queues consume and ack every message once, a
// RECONSUME_LATER comes back after Java's delay with reconsume times + 1, Java's rule at max reconsume times,
// a member shut down with unacked messages loses them to the other after their invisible time and never acks
// late, acks go asynchronously when the transport can, and an orderly consumer refuses POP mode.

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <consumer_support.hpp>
#include <forwarding_transport.hpp>

#include <catch2/catch.hpp>

#include <rmq/concepts/transport.hpp>
#include <rmq/consumer.hpp>
#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/transport/in_process.hpp>

#include <rmq/detail/pop_consumer/delay.hpp>

namespace push_pop_test {

namespace {

using namespace std::chrono_literals;
using consumer_test::eventually;
using consumer_test::PushConsumer;

/// What the listeners saw: body -> reconsume times of each delivery, under one mutex.
struct Seen {
    std::mutex mutex;
    std::map<std::string, std::vector<int>> deliveries;

    void record(const rmq::MessageExt& m) {
        const std::lock_guard lock(mutex);
        deliveries[m.body()].push_back(m.reconsume_times());
    }

    std::map<std::string, std::vector<int>> snapshot() {
        const std::lock_guard lock(mutex);
        return deliveries;
    }

    std::size_t distinct() { return snapshot().size(); }

    std::vector<int> of(const std::string& body) {
        const auto s = snapshot();
        const auto it = s.find(body);
        return it == s.end() ? std::vector<int>{} : it->second;
    }
};

struct Fixture {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker;
    rmq::InProcessTransport producer;
    int sent = 0;

    Fixture()
        : broker([&] {
            rmq::BrokerConfig c;
            c.clock = clock;
            return c;
        }())
        , producer(broker.connect()) {
        broker.create_topic("T", 4);
    }

    void send(const std::string& body) {
        rmq::Message m("T", "A", body);
        (void)producer.send(m, broker.queue("T", sent++ % 4));
    }

    [[nodiscard]] static rmq::ConsumerConfig pop_config(int batch = 32) {
        auto c = consumer_test::fast_config("g");
        c.message_request_mode = rmq::MessageRequestMode::Pop;
        c.pop_batch_nums = batch;
        c.pop_invisible_time = 60000;
        return c;
    }

    template <class Listener>
    std::unique_ptr<PushConsumer> start(Listener listener, rmq::ConsumerConfig config = pop_config()) {
        auto c = std::make_unique<PushConsumer>(broker.connect(), std::move(config));
        c->subscribe("T", "*");
        c->register_listener(std::move(listener));
        c->start();
        return c;
    }

    /// Sends `marker` and waits until a listener saw it: every pop before it has been answered.
    bool round_trip(Seen& seen, const std::string& marker) {
        send(marker);
        return eventually([&] { return !seen.of(marker).empty(); });
    }
};

auto recording(Seen& seen) {
    return [&seen](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        for (const auto& m : msgs) {
            seen.record(m);
        }
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    };
}

}  // namespace

TEST_CASE("two POP members share the queues and ack every message once", "[pop][push_pop]") {
    Fixture f;
    Seen seen;
    auto a = f.start(recording(seen), Fixture::pop_config(4));
    auto b = f.start(recording(seen), Fixture::pop_config(4));
    const rmq::MessageQueue pop_queue{"T", "broker-a", -1};
    REQUIRE(eventually([&] {
        const auto qa = a->assigned_queues();
        const auto qb = b->assigned_queues();
        return std::find(qa.begin(), qa.end(), pop_queue) != qa.end() &&
               std::find(qb.begin(), qb.end(), pop_queue) != qb.end();
    }));
    for (int i = 0; i < 40; ++i) {
        f.send(fmt::format("m{}", i));
    }
    REQUIRE(eventually([&] { return seen.distinct() == 40 && f.broker.pop_in_flight("g") == 0; }));
    f.clock->advance(120s);  // past every invisible time: an unacked message would come back now
    REQUIRE(f.round_trip(seen, "marker"));
    for (const auto& [body, times] : seen.snapshot()) {
        INFO(body);
        CHECK(times == std::vector<int>{0});
    }
    CHECK(f.broker.pop_in_flight("g") == 0);
    // No offsets from the client in POP mode (the broker moved the group's offsets at each pop).
    for (int q = 0; q < 4; ++q) {
        CHECK(a->offset_store().read_offset(rmq::MessageQueue{"T", "broker-a", q},
                                            rmq::ReadOffsetType::ReadFromMemory) < 0);
    }
}

TEST_CASE("RECONSUME_LATER comes back after Java's POP delay with reconsume times + 1", "[pop][push_pop]") {
    Fixture f;
    Seen seen;
    std::atomic<int> calls{0};
    auto c = f.start([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        for (const auto& m : msgs) {
            seen.record(m);
        }
        if (msgs.front().body() == "fail-once" && calls.fetch_add(1) == 0) {
            return rmq::ConsumeConcurrentlyStatus::ReconsumeLater;
        }
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    f.send("fail-once");
    REQUIRE(eventually([&] { return !seen.of("fail-once").empty() && f.broker.pop_in_flight("g") == 1; }));
    // Delay level 0 with reconsume times 0: popDelayLevel[0], 10 s (not the 60 s pop invisible time).
    f.clock->advance(9s);
    REQUIRE(f.round_trip(seen, "marker-1"));
    CHECK(seen.of("fail-once") == std::vector<int>{0});
    f.clock->advance(1s);
    REQUIRE(eventually([&] { return seen.of("fail-once").size() == 2 && f.broker.pop_in_flight("g") == 0; }));
    CHECK(seen.of("fail-once") == std::vector<int>{0, 1});
}

TEST_CASE("at max reconsume times a POP message is delayed by its age, then given up (Java)",
          "[pop][push_pop]") {
    Fixture f;
    Seen seen;
    auto config = Fixture::pop_config();
    config.max_reconsume_times = 1;
    auto c = f.start(
        [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
            for (const auto& m : msgs) {
                seen.record(m);
            }
            return msgs.front().body() == "always-fails" ? rmq::ConsumeConcurrentlyStatus::ReconsumeLater
                                                         : rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        },
        config);
    f.send("always-fails");
    REQUIRE(
        eventually([&] { return seen.of("always-fails").size() == 1 && f.broker.pop_in_flight("g") == 1; }));
    f.clock->advance(10s);  // reconsume 0 < max: popDelayLevel[0]
    REQUIRE(eventually([&] { return seen.of("always-fails").size() == 2; }));
    // Reconsume times 1 = max, 10 s old: the level above its age, 30 s, not an ack.
    REQUIRE(eventually([&] { return f.broker.pop_in_flight("g") == 1; }));
    f.clock->advance(29s);
    REQUIRE(f.round_trip(seen, "marker-1"));
    CHECK(seen.of("always-fails").size() == 2);
    f.clock->advance(1s);
    REQUIRE(eventually([&] { return seen.of("always-fails").size() == 3; }));
    // Older than twice the last level (2 h): Java acks it, and it never comes back.
    f.clock->advance(std::chrono::hours(5));
    REQUIRE(
        eventually([&] { return seen.of("always-fails").size() == 4 && f.broker.pop_in_flight("g") == 0; }));
    f.clock->advance(std::chrono::hours(3));
    REQUIRE(f.round_trip(seen, "marker-2"));
    CHECK(seen.of("always-fails") == std::vector<int>{0, 1, 2, 3});
    CHECK(f.broker.pop_in_flight("g") == 0);
}

TEST_CASE("a POP member shut down with unacked messages loses them to another, never acking late",
          "[pop][push_pop]") {
    Fixture f;
    Seen seen_a;
    Seen seen_b;
    std::mutex gate_mutex;
    std::condition_variable gate_cv;
    bool release = false;
    std::atomic<int> a_running{0};
    auto config_a = Fixture::pop_config();
    config_a.await_termination_millis_when_shutdown = 100;
    auto a = f.start(
        [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
            for (const auto& m : msgs) {
                seen_a.record(m);
            }
            a_running.fetch_add(1);
            std::unique_lock lock(gate_mutex);
            gate_cv.wait(lock, [&] { return release; });
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        },
        config_a);
    f.send("held");
    REQUIRE(eventually([&] { return a_running.load() == 1; }));
    a->shutdown();  // gives up waiting for the held listener after 100 ms
    {
        const std::lock_guard lock(gate_mutex);
        release = true;
    }
    gate_cv.notify_all();
    a.reset();  // waits for the listener, which returns success after shutdown: no ack
    CHECK(f.broker.pop_in_flight("g") == 1);

    auto b = f.start(recording(seen_b));
    REQUIRE(f.round_trip(seen_b, "marker"));
    CHECK(seen_b.of("held").empty());  // still invisible
    f.clock->advance(60s);
    REQUIRE(eventually(
        [&] { return seen_b.of("held") == std::vector<int>{1} && f.broker.pop_in_flight("g") == 0; }));
}

/// The embedded broker with POP, counting which ack_message the consumer calls.
class AckCounting : public rmq_test::ForwardingTransport {
public:
    using ForwardingTransport::ForwardingTransport;

    rmq::PopResult pop_message(const rmq::PopArgs& args) { return inner_.pop_message(args); }

    void ack_message(const rmq::AckArgs& args) {
        ++*sync_count;
        inner_.ack_message(args);
    }

    void ack_message(const rmq::AckArgs& args, rmq::AckCompletion done) {
        ++*async_count;
        inner_.ack_message(args, std::move(done));
    }

    std::string change_invisible_time(const rmq::ChangeInvisibleTimeArgs& args) {
        return inner_.change_invisible_time(args);
    }

    // a held pop would keep shutdown() waiting for the manual clock
    void interrupt_pops(const std::string& group) { inner_.interrupt_pops(group); }

    void resume_pops(const std::string& group) { inner_.resume_pops(group); }

    std::shared_ptr<std::atomic<int>> sync_count = std::make_shared<std::atomic<int>>(0);
    std::shared_ptr<std::atomic<int>> async_count = std::make_shared<std::atomic<int>>(0);
};

TEST_CASE("POP mode acks without waiting when the transport can (Java's ackAsync)", "[pop][push_pop]") {
    STATIC_REQUIRE(rmq::HasAsyncAck<rmq::InProcessTransport>);
    STATIC_REQUIRE(rmq::HasAsyncAck<AckCounting>);
    Fixture f;
    Seen seen;
    AckCounting transport(f.broker.connect());
    const auto sync_count = transport.sync_count;
    const auto async_count = transport.async_count;
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::RemoteOffsetStore, AckCounting> c{
        std::move(transport), Fixture::pop_config(4)};
    c.subscribe("T", "*");
    c.register_listener(recording(seen));
    c.start();
    for (int i = 0; i < 20; ++i) {
        f.send(fmt::format("m{}", i));
    }
    REQUIRE(eventually([&] { return seen.distinct() == 20 && f.broker.pop_in_flight("g") == 0; }));
    c.shutdown();
    CHECK(async_count->load() == 20);
    CHECK(sync_count->load() == 0);
}

/// The embedded broker with POP and a route change handler, as RemotingTransport has (issue 30: a broker went
/// away or came back), counting pulls.
class RouteChanging : public rmq_test::ForwardingTransport {
public:
    using ForwardingTransport::ForwardingTransport;

    struct State {
        std::mutex mutex;
        std::map<std::string, rmq::RouteChangeHandler> handlers;
        std::atomic<int> pulls{0};

        /// Tells every registered handler that `topic`'s route changed; false when none is registered.
        bool route_changed(const std::string& topic) {
            const std::lock_guard lock(mutex);
            bool told = false;
            for (auto& [key, h] : handlers) {
                if (h) {
                    h(topic);
                    told = true;
                }
            }
            return told;
        }
    };

    rmq::PopResult pop_message(const rmq::PopArgs& args) { return inner_.pop_message(args); }

    void ack_message(const rmq::AckArgs& args) { inner_.ack_message(args); }

    void ack_message(const rmq::AckArgs& args, rmq::AckCompletion done) {
        inner_.ack_message(args, std::move(done));
    }

    std::string change_invisible_time(const rmq::ChangeInvisibleTimeArgs& args) {
        return inner_.change_invisible_time(args);
    }

    void interrupt_pops(const std::string& group) { inner_.interrupt_pops(group); }

    void resume_pops(const std::string& group) { inner_.resume_pops(group); }

    void pull(const rmq::PullArgs& a, rmq::PullCallback cb) {
        ++state->pulls;
        inner_.pull(a, std::move(cb));
    }

    void set_route_change_handler(const std::string& key, rmq::RouteChangeHandler h) {
        const std::lock_guard lock(state->mutex);
        state->handlers[key] = std::move(h);
    }

    std::shared_ptr<State> state = std::make_shared<State>();
};

// The chaos suite's POP run (docs/chaos.md#pop-mode): when a broker was killed, the route change started the
// pull rebalance in POP members, which then pulled the queues they popped (messages handled twice within
// milliseconds) and committed pull offsets over the group's pop offsets.
TEST_CASE("a route change does not make a POP member pull", "[pop][push_pop]") {
    STATIC_REQUIRE(rmq::HasRouteChangeHandler<RouteChanging>);
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    RouteChanging transport(broker.connect());
    const auto state = transport.state;
    Seen seen;
    auto config = Fixture::pop_config();
    config.rebalance_interval = 100;
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::RemoteOffsetStore, RouteChanging> c{
        std::move(transport), config};
    c.subscribe("T", "*");
    c.register_listener(recording(seen));
    c.start();
    REQUIRE(eventually([&] { return state->route_changed("T"); }));
    // the pull rebalance would run 500 ms after the change (rebalance_later) and pull at once
    const bool pulled = eventually([&] { return state->pulls.load() > 0; }, 3s);
    const auto queues = c.assigned_queues();
    c.shutdown();
    CHECK_FALSE(pulled);
    CHECK_FALSE(queues.empty());
    for (const auto& mq : queues) {
        CHECK(mq.queue_id == -1);  // POP queues only
    }
}

TEST_CASE("POP mode needs rmq::Concurrently", "[pop][push_pop]") {
    rmq::InProcessBroker broker;
    auto config = Fixture::pop_config();
    using Orderly =
        rmq::Consumer<rmq::Orderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;
    CHECK_THROWS_AS(Orderly(broker.connect(), config), rmq::InvalidArgument);
    CHECK_NOTHROW(PushConsumer(broker.connect(), config));
}

TEST_CASE("POP config fields are validated with Java's ranges", "[pop][push_pop]") {
    auto config = Fixture::pop_config();
    config.pop_invisible_time = 4999;
    CHECK_THROWS_AS(config.validate(), rmq::InvalidArgument);
    config.pop_invisible_time = 300000;
    config.pop_batch_nums = 33;
    CHECK_THROWS_AS(config.validate(), rmq::InvalidArgument);
    config.pop_batch_nums = 32;
    config.pop_threshold_for_queue = 0;
    CHECK_THROWS_AS(config.validate(), rmq::InvalidArgument);
}

TEST_CASE("Java's POP delays: popDelayLevel by level or reconsume times, by age at max reconsume times",
          "[pop][push_pop]") {
    using rmq::detail::pop_exhausted_delay_level;
    using rmq::detail::pop_retry_delay_millis;
    CHECK(pop_retry_delay_millis(0, 0) == 10000);
    CHECK(pop_retry_delay_millis(0, 3) == 120000);
    CHECK(pop_retry_delay_millis(2, 7) == 60000);
    CHECK(pop_retry_delay_millis(99, 0) == 7200000);
    CHECK(pop_exhausted_delay_level(5000) == 0);
    CHECK(pop_exhausted_delay_level(10000) == 1);
    CHECK(pop_exhausted_delay_level(45000) == 2);
    CHECK(pop_exhausted_delay_level(3 * 3600 * 1000) == 15);
    CHECK_FALSE(pop_exhausted_delay_level(4 * 3600 * 1000 + 1).has_value());
}

TEST_CASE("POP flow control pops until more than pop_threshold_for_queue wait for their ack (Java's >)",
          "[pop][push_pop]") {
    Fixture f;
    std::promise<void> release;
    const std::shared_future<void> released = release.get_future().share();
    auto config = Fixture::pop_config(1);
    config.pop_threshold_for_queue = 2;
    auto c = f.start(
        [released](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
            released.wait();  // every popped message stays unacked until the test lets go
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        },
        config);
    for (int i = 0; i < 10; ++i) {
        f.send(fmt::format("m{}", i));
    }
    // Pops while 0, 1 and 2 wait (Java: waitAckMsgCount > popThresholdForQueue stops it): 3 in flight.
    CHECK(eventually([&] { return f.broker.pop_in_flight("g") == 3; }));
    release.set_value();
    CHECK(eventually([&] { return f.broker.pop_in_flight("g") == 0; }));
    c->shutdown();
}

}  // namespace push_pop_test
