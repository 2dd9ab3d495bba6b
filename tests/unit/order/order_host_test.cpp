// The host facade an order policy's Service sees (rmq::OrderHost): the consumer keeps the data path's
// invariants for every policy. A custom policy written on the facade alone gets retries that come back with
// their own topic, the consume-timeout sweep and queue added/removed notifications; every stock policy's
// listener sees the same prepared messages (CONSUME_START_TIME, MIN_OFFSET, MAX_OFFSET) between the hooks.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/order/host.hpp>
#include <rmq/topic.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::produce;
using consumer_test::Recorder;

namespace {

/// A user's policy: one listener call per message; a failure goes back to the broker; the policy counts the
/// queues of subscribed topics it is told about (not %RETRY%group's; one counter per test: each test names
/// its own Tag).
template <int Tag>
struct OneByOne {
    using Context = rmq::ConsumeConcurrentlyContext;
    using Status = rmq::ConsumeConcurrentlyStatus;
    using Listener = std::function<std::optional<Status>(std::span<const rmq::MessageExt>, Context&)>;
    static constexpr std::string_view listener_signature =
        "(std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) -> "
        "rmq::ConsumeConcurrentlyStatus";
    static constexpr Status failure_status = Status::ReconsumeLater;

    static constexpr bool is_success(Status status) noexcept { return status == Status::ConsumeSuccess; }

    static constexpr bool requires_queue_lock = false;
    static constexpr bool span_flow_control = true;
    static constexpr bool unlimited_retries_by_default = false;

    inline static std::atomic<int> added{0};
    inline static std::atomic<int> removed{0};

    template <class Host>
    class Service {
    public:
        explicit Service(Host& host)
            : host_(host) {}

        void on_queue_added(const rmq::ConsumeQueue& q) {
            added += rmq::is_retry_topic(q.mq().topic) ? 0 : 1;
        }

        bool on_queue_removed(const rmq::ConsumeQueue& q) {
            removed += rmq::is_retry_topic(q.mq().topic) ? 0 : 1;
            return q.dropped();  // the host tells a removal only for a dropped queue
        }

        void on_messages(const rmq::ConsumeQueue& q, const rmq::MessageBatch& msgs) {
            for (std::size_t i = 0; i < msgs.size(); ++i) {
                host_.submit([this, q, one = msgs.slice(i, 1)]() mutable {
                    Context ctx(q.mq());
                    if (const auto call = host_.consume(q, one, ctx)) {
                        host_.settle(q, std::move(one), call->status == Status::ConsumeSuccess ? 1 : 0, 0);
                    }
                });
            }
        }

    private:
        Host& host_;
    };
};

static_assert(rmq::OrderPolicy<OneByOne<0>>);

template <class Policy>
using ConsumerOf =
    rmq::Consumer<Policy, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

/// What a listener saw of one message.
struct Seen {
    std::string body;
    std::string topic;
    int reconsume_times = 0;
    std::string consume_start;
    std::string min_offset;
    std::string max_offset;
};

Seen seen_of(const rmq::MessageExt& msg) {
    return Seen{msg.body(),
                msg.topic(),
                msg.reconsume_times(),
                std::string(msg.property_view(rmq::property::consume_start_timestamp)),
                std::string(msg.property_view(rmq::property::min_offset)),
                std::string(msg.property_view(rmq::property::max_offset))};
}

template <class C>
std::size_t owned(C& consumer, const std::string& topic) {
    const auto queues = consumer.assigned_queues();
    return static_cast<std::size_t>(std::count_if(
        queues.begin(), queues.end(), [&](const rmq::MessageQueue& mq) { return mq.topic == topic; }));
}

template <class C>
std::int64_t committed(C& consumer, const std::string& topic) {
    std::int64_t sum = 0;
    for (const auto& q : consumer.stats().queues) {
        if (q.mq.topic == topic) {
            sum += std::max<std::int64_t>(0, q.commit_offset);
        }
    }
    return sum;
}

}  // namespace

TEST_CASE("a custom policy's failed message comes back with its own topic, prepared like the first time",
          "[consumer][order_host]") {
    rmq::InProcessBroker broker(consumer_test::fast_broker_config());
    broker.create_topic("OneByOne", 2);
    produce(broker, "OneByOne", 2, 20);
    Recorder rec;
    std::vector<Seen> seen;
    ConsumerOf<OneByOne<1>> consumer{broker.connect(), fast_config("one_by_one")};
    consumer.subscribe("OneByOne", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        bool fail = false;
        rec.update([&] {
            for (const auto& msg : msgs) {
                seen.push_back(seen_of(msg));
                fail = fail || (msg.body() == "m3" && msg.reconsume_times() == 0);
            }
        });
        return fail ? rmq::ConsumeConcurrentlyStatus::ReconsumeLater
                    : rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() == 21; }));
    REQUIRE(eventually([&] { return committed(consumer, "OneByOne") == 20; }));
    consumer.shutdown();
    const auto all = rec.read([&] { return seen; });
    int m3 = 0;
    for (const auto& s : all) {
        CHECK(s.topic == "OneByOne");  // a retried message too: the host resets the retry topic
        CHECK_FALSE(s.consume_start.empty());
        CHECK_FALSE(s.max_offset.empty());
        if (s.body == "m3") {
            CHECK(s.reconsume_times == m3++);
        }
    }
    CHECK(m3 == 2);
    CHECK(OneByOne<1>::added.load() == 2);
}

TEST_CASE("a custom policy is told of every queue added and removed", "[consumer][order_host]") {
    using Policy = OneByOne<2>;
    rmq::InProcessBroker broker(consumer_test::fast_broker_config());
    broker.create_topic("Moves", 4);
    const auto ok = [](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    };
    ConsumerOf<Policy> first{broker.connect(), fast_config("moves")};
    first.subscribe("Moves", "*");
    first.register_listener(ok);
    first.start();
    REQUIRE(eventually([&] { return owned(first, "Moves") == 4; }));
    CHECK(Policy::added.load() == 4);
    {
        ConsumerOf<OneByOne<3>> second{broker.connect(), fast_config("moves")};
        second.subscribe("Moves", "*");
        second.register_listener(ok);
        second.start();
        REQUIRE(eventually([&] { return owned(first, "Moves") == 2; }));
        REQUIRE(eventually([&] { return Policy::removed.load() == 2; }));
        second.shutdown();
    }
    // The second member left: its two queues are taken on again, each told once more.
    REQUIRE(eventually([&] { return owned(first, "Moves") == 4; }));
    CHECK(Policy::added.load() == 6);
    first.unsubscribe("Moves");  // unsubscribing drops every queue of the topic: told too
    REQUIRE(eventually([&] { return owned(first, "Moves") == 0; }));
    CHECK(Policy::removed.load() == 6);
    first.shutdown();
}

TEST_CASE("a custom policy's call past consume_timeout is swept by the host", "[consumer][order_host]") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::BrokerConfig broker_config = consumer_test::fast_broker_config();
    broker_config.clock = clock;
    rmq::InProcessBroker broker(broker_config);
    broker.create_topic("Slow", 1);
    produce(broker, "Slow", 1, 1, "slow");
    auto config = fast_config("slow_custom");
    config.consume_timeout = 1;  // minutes
    config.await_termination_millis_when_shutdown = 0;
    // Declared before the consumer to outlive it: its destructor waits for the listener that reads them.
    Recorder rec;
    std::vector<Seen> seen;
    bool released = false;
    ConsumerOf<OneByOne<4>> consumer{broker.connect(), config};
    consumer.subscribe("Slow", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        bool first = false;
        rec.update([&] {
            seen.push_back(seen_of(msgs[0]));
            first = seen.size() == 1;
        });
        if (first) {
            rec.wait([&] { return released; });  // stuck until the test lets it go
        }
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() == 1; }));
    // Just past consume_timeout (the sweep runs every second). The two advances stay under the broker's
    // channel_expired_timeout (120 s): past it, a member whose heartbeat did not land in between expires, and
    // the rebalance that follows may redeliver the first message too (at-least-once), which the exact counts
    // below do not expect.
    clock->advance(std::chrono::seconds(61));
    REQUIRE(eventually([&] { return broker.scheduled_count() == 1; }));
    clock->advance(std::chrono::seconds(5));  // the retry's delay passes
    REQUIRE(rec.wait([&] { return seen.size() == 2; }));
    const auto second = rec.read([&] { return seen[1]; });
    CHECK(second.body == "slow0");
    CHECK(second.topic == "Slow");
    CHECK(second.reconsume_times == 1);
    rec.update([&] { released = true; });
    consumer.shutdown();
}

TEMPLATE_TEST_CASE("every policy's listener sees prepared messages between the hooks",
                   "[consumer][order_host]",
                   rmq::Concurrently,
                   rmq::Orderly,
                   rmq::KeyOrderly) {
    rmq::InProcessBroker broker;
    broker.create_topic("Prepared", 2);
    produce(broker, "Prepared", 2, 6);
    using Status = typename TestType::Status;
    using Context = typename TestType::Context;
    Recorder rec;
    std::vector<Seen> seen;
    std::vector<std::string> events;
    ConsumerOf<TestType> consumer{broker.connect(), fast_config("prepared")};
    consumer.subscribe("Prepared", "*");
    consumer.set_consume_hooks(rmq::ConsumeHooks{
        .before = [&](const rmq::MessageQueue&,
                      std::span<const rmq::MessageExt>) { rec.update([&] { events.push_back("before"); }); },
        .after = [&](const rmq::MessageQueue&,
                     std::span<const rmq::MessageExt>,
                     bool ok) { rec.update([&] { events.push_back(ok ? "after ok" : "after failed"); }); },
    });
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, Context&) {
        rec.update([&] {
            events.push_back("listener");
            for (const auto& msg : msgs) {
                seen.push_back(seen_of(msg));
            }
        });
        return Status{};  // ConsumeSuccess / Success: the first enumerator of both
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() >= 6; }));
    REQUIRE(eventually([&] { return committed(consumer, "Prepared") == 6; }));
    consumer.shutdown();
    rec.read([&] {
        for (const auto& s : seen) {
            CHECK(s.topic == "Prepared");
            CHECK_FALSE(s.consume_start.empty());  // Orderly and KeyOrderly too
            CHECK(s.min_offset == "0");
            CHECK(s.max_offset == "3");
        }
        // Calls of different queues interleave: count them, each call has all three.
        const auto count = [&](std::string_view what) {
            return std::count(events.begin(), events.end(), what);
        };
        CHECK(count("before") == count("listener"));
        CHECK(count("after ok") == count("listener"));
        CHECK(count("after failed") == 0);
        return 0;
    });
}

namespace {
template <class H>
constexpr bool reaches_lifecycle = requires(H& h) { h.shutdown(); } || requires(H& h) { h.start(); };
template <class H>
constexpr bool reaches_policies = requires(H& h) { h.transport(); } || requires(H& h) { h.offset_store(); };
template <class H>
constexpr bool writes_offsets = requires(H& h, const rmq::MessageQueue& mq) { h.update_offset(mq, 1, true); };
template <class H>
constexpr bool writes_queues = requires(H& h, const rmq::ConsumeQueue& q) { h.unlock_queues(q); } ||
                               requires(H& h, const rmq::ConsumeQueue& q) { h.set_locked(q, true); };
template <class Q>
constexpr bool exposes_cache = requires(const Q& q) { q.cache(); };
}  // namespace

TEST_CASE("the host facade offers no way to the consumer's lifecycle, policies, offsets or queue state",
          "[consumer][order_host]") {
    using Host = rmq::OrderHost<rmq::Concurrently>;
    STATIC_REQUIRE_FALSE(reaches_lifecycle<Host>);
    STATIC_REQUIRE_FALSE(reaches_policies<Host>);
    STATIC_REQUIRE_FALSE(
        writes_offsets<Host>);  // offsets follow ack/settle/commit_taken, by the host's rules
    STATIC_REQUIRE_FALSE(writes_queues<Host>);
    STATIC_REQUIRE_FALSE(exposes_cache<rmq::ConsumeQueue>);  // the ProcessQueue behind it is the consumer's
}
