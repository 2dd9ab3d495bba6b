// The public host facade an order policy's Service sees (rmq::OrderHost): the shared listener call, and a
// custom policy written on the facade alone consuming through a real consumer.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/order/host.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::produce;

namespace {

using Status = rmq::ConsumeConcurrentlyStatus;

/// A host with only a listener and hooks: every other member is unused by call_listener.
class FakeHost final : public rmq::OrderHost<rmq::Concurrently> {
public:
    Listener listener_fn;
    rmq::ConsumeHooks hook_fns;
    rmq::ConsumerConfig config_value;
    std::string group_name = "g";
    std::shared_ptr<rmq::Clock> clock_value = rmq::system_clock();

    const rmq::ConsumerConfig& config() const noexcept override { return config_value; }

    const std::string& group() const noexcept override { return group_name; }

    const std::string& client_id() const noexcept override { return group_name; }

    bool clustering() const noexcept override { return true; }

    int max_reconsume_times() const noexcept override { return 16; }

    const std::shared_ptr<rmq::Clock>& clock() const noexcept override { return clock_value; }

    bool stopping() const noexcept override { return false; }

    bool pulls_complete_on_loop() const noexcept override { return false; }

    void submit(std::function<void()> task) override { task(); }

    void schedule(std::int64_t, std::function<void()> fn) override { fn(); }

    std::vector<QueueEntry> owned_queues() const override { return {}; }

    void update_offset(const rmq::MessageQueue&, std::int64_t, bool) override {}

    bool send_back(const rmq::MessageExt&, int) override { return true; }

    bool send_to_dlq(const rmq::MessageExt&) override { return true; }

    bool lock_queue(const rmq::MessageQueue&) override { return true; }

    void unlock_queues(const std::vector<rmq::MessageQueue>&) override {}

    void lock_all() override {}

    void unlock_all() override {}

    void record_consume(std::string_view, std::int64_t, std::int64_t, std::int64_t) override {}

    void record_consume_rt(std::string_view, std::int64_t) override {}

    void record_consume_ok(std::string_view, std::int64_t) override {}

    void record_consume_failed(std::string_view, std::int64_t) override {}

protected:
    const Listener& listener() const noexcept override { return listener_fn; }

    const rmq::ConsumeHooks& hooks() const noexcept override { return hook_fns; }
};

/// What the hooks saw, in order.
struct HookLog {
    std::vector<std::string> events;

    rmq::ConsumeHooks hooks() {
        return rmq::ConsumeHooks{
            .before = [this](const rmq::MessageQueue&,
                             std::span<const rmq::MessageExt>) { events.push_back("before"); },
            .after = [this](const rmq::MessageQueue&,
                            std::span<const rmq::MessageExt>,
                            bool ok) { events.push_back(ok ? "after ok" : "after failed"); },
        };
    }
};

}  // namespace

TEST_CASE("call_listener returns the listener's status between the hooks", "[consumer][order_host]") {
    FakeHost host;
    HookLog log;
    host.hook_fns = log.hooks();
    host.listener_fn = [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        log.events.push_back("listener " + std::to_string(msgs.size()));
        return std::optional<Status>(Status::ConsumeSuccess);
    };
    const rmq::MessageQueue mq{"T", "b", 0};
    std::vector<rmq::MessageExt> msgs(2);
    rmq::ConsumeConcurrentlyContext ctx(mq);
    const auto call = host.call_listener(mq, msgs, ctx);
    REQUIRE(call.has_value());
    CHECK(call->status == Status::ConsumeSuccess);
    CHECK(call->answered);
    CHECK(call->rt_millis >= 0);
    CHECK(log.events == std::vector<std::string>{"before", "listener 2", "after ok"});
}

TEST_CASE("call_listener turns an exception or nullopt into the policy's failure status",
          "[consumer][order_host]") {
    FakeHost host;
    HookLog log;
    host.hook_fns = log.hooks();
    const bool throws = GENERATE(true, false);
    host.listener_fn = [throws](std::span<const rmq::MessageExt>,
                                rmq::ConsumeConcurrentlyContext&) -> std::optional<Status> {
        if (throws) {
            throw std::runtime_error("listener failed");
        }
        return std::nullopt;
    };
    host.hook_fns.before = [](const rmq::MessageQueue&, std::span<const rmq::MessageExt>) {
        throw std::runtime_error("a failing hook is logged and ignored");
    };
    const rmq::MessageQueue mq{"T", "b", 0};
    std::vector<rmq::MessageExt> msgs(1);
    rmq::ConsumeConcurrentlyContext ctx(mq);
    const auto call = host.call_listener(mq, msgs, ctx);
    REQUIRE(call.has_value());
    CHECK(call->status == rmq::Concurrently::failure_status);
    CHECK_FALSE(call->answered);
    CHECK(log.events == std::vector<std::string>{"after failed"});
}

TEST_CASE("call_listener skips the listener when the guard refuses", "[consumer][order_host]") {
    FakeHost host;
    HookLog log;
    host.hook_fns = log.hooks();
    bool called = false;
    host.listener_fn = [&](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        called = true;
        return std::optional<Status>(Status::ConsumeSuccess);
    };
    const rmq::MessageQueue mq{"T", "b", 0};
    std::vector<rmq::MessageExt> msgs(1);
    rmq::ConsumeConcurrentlyContext ctx(mq);
    bool guard_held_during_call = false;
    const auto refused = host.call_listener(mq, msgs, ctx, [] { return false; });
    CHECK_FALSE(refused.has_value());
    CHECK_FALSE(called);
    CHECK(log.events == std::vector<std::string>{"before"});

    std::mutex m;
    const auto ran = host.call_listener(mq, msgs, ctx, [&] {
        std::unique_lock lock(m);
        return lock;
    });
    guard_held_during_call = !m.try_lock();
    if (!guard_held_during_call) {
        m.unlock();
    }
    CHECK(ran.has_value());
    CHECK(called);
    CHECK_FALSE(guard_held_during_call);  // released when the call returned
}

namespace {

/// A minimal custom policy on the facade alone: every message is its own listener call; failures are sent
/// back; each call's offset is reported through the min-offset rule. It also records what the host told it.
struct OneByOne {
    using Context = rmq::ConsumeConcurrentlyContext;
    using Status = rmq::ConsumeConcurrentlyStatus;
    using Listener = std::function<std::optional<Status>(std::span<const rmq::MessageExt>, Context&)>;
    static constexpr std::string_view listener_signature = "(span, ConsumeConcurrentlyContext&) -> status";
    static constexpr Status failure_status = Status::ReconsumeLater;

    static constexpr bool is_success(Status s) noexcept { return s == Status::ConsumeSuccess; }

    static constexpr bool requires_queue_lock = false;
    static constexpr bool span_flow_control = true;
    static constexpr bool unlimited_retries_by_default = false;

    inline static std::atomic<int> released{0};
    inline static std::atomic<int> drained{0};

    template <class Host>
    class Service {
    public:
        explicit Service(Host& host)
            : host_(host) {}

        void start() {}

        void stop() {}

        void after_drain() { ++drained; }

        bool release_queue(const rmq::MessageQueue&, rmq::ProcessQueue&) {
            ++released;
            return true;
        }

        void on_pulled(const rmq::MessageQueue& mq,
                       const std::shared_ptr<rmq::ProcessQueue>& pq,
                       std::vector<rmq::MessageExt> msgs) {
            (void)pq->put_messages(msgs);
            for (auto& msg : msgs) {
                host_.submit([this, mq, pq, msg = std::move(msg)] { consume(mq, *pq, msg); });
            }
        }

    private:
        void consume(const rmq::MessageQueue& mq, rmq::ProcessQueue& pq, const rmq::MessageExt& msg) {
            Context ctx(mq);
            const auto call = *host_.call_listener(mq, std::span<const rmq::MessageExt>(&msg, 1), ctx);
            if (!call.answered || call.status != Status::ConsumeSuccess) {
                if (!host_.send_back(msg, 0)) {
                    return;
                }
            }
            const std::int64_t offset = pq.remove_messages(std::vector<std::int64_t>{msg.queue_offset()});
            if (offset >= 0 && !pq.dropped()) {
                host_.update_offset(mq, offset, true);
            }
        }

        Host& host_;
    };
};

static_assert(rmq::OrderPolicy<OneByOne>);

}  // namespace

TEST_CASE("a custom order policy on the facade consumes, retries through send-back and commits",
          "[consumer][order_host]") {
    rmq::InProcessBroker broker(consumer_test::fast_broker_config());
    broker.create_topic("OneByOne", 2);
    produce(broker, "OneByOne", 2, 20);
    std::mutex mutex;
    std::multiset<std::string> seen;
    std::set<std::string> failed_once;
    rmq::Consumer<OneByOne, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport> consumer{
        broker.connect(), fast_config("one_by_one")};
    consumer.subscribe("OneByOne", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        const std::lock_guard lock(mutex);
        for (const auto& msg : msgs) {
            seen.insert(msg.body());
        }
        // m3 fails the first time: it must come back through the retry topic.
        if (msgs.size() == 1 && msgs[0].body() == "m3" && failed_once.insert("m3").second) {
            throw std::runtime_error("first attempt of m3 fails");
        }
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    const auto committed = [&] {
        std::int64_t sum = 0;
        for (const auto& q : consumer.stats().queues) {
            if (q.mq.topic == "OneByOne") {
                sum += std::max<std::int64_t>(0, q.commit_offset);
            }
        }
        return sum;
    };
    REQUIRE(eventually([&] {
        const std::lock_guard lock(mutex);
        return seen.size() == 21 && seen.count("m3") == 2;
    }));
    REQUIRE(eventually([&] { return committed() == 20; }));
    consumer.shutdown();
    const std::lock_guard lock(mutex);
    for (int i = 0; i < 20; ++i) {
        const std::string body = "m" + std::to_string(i);
        CHECK(seen.count(body) == (body == "m3" ? 2U : 1U));
    }
    CHECK(OneByOne::drained.load() == 1);
}

namespace {
template <class H>
constexpr bool reaches_lifecycle = requires(H& h) { h.shutdown(); } || requires(H& h) { h.start(); };
template <class H>
constexpr bool reaches_policies = requires(H& h) { h.transport(); } || requires(H& h) { h.offset_store(); };
template <class H>
constexpr bool reports_offsets =
    requires(H& h, const rmq::MessageQueue& mq) { h.update_offset(mq, 1, true); };
}  // namespace

TEST_CASE("the host facade offers no way to the consumer's lifecycle or policies", "[consumer][order_host]") {
    using Host = rmq::OrderHost<rmq::Concurrently>;
    STATIC_REQUIRE_FALSE(reaches_lifecycle<Host>);
    STATIC_REQUIRE_FALSE(reaches_policies<Host>);
    STATIC_REQUIRE(reports_offsets<Host>);
}
