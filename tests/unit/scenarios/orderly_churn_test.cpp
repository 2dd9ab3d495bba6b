// Orderly consumption while the group changes under it: 10 orders × 200 steps over 8 queues, three consumers
// joining and leaving while they consume. For every order no step may start before its predecessor finished
// (a redelivery of a step already done is allowed), no two steps of one order may run at once — across all
// members — and no step may be lost.

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "scenario_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

using scenario::fast_config;
using scenario::Recorder;

namespace {

using OrderlyConsumer =
    rmq::Consumer<rmq::Orderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

constexpr int order_count = 10;
constexpr int step_count = 200;
constexpr int queue_count = 8;

/// What the listeners saw, per order.
struct OrderBook {
    std::array<int, order_count> last_done{};  // highest step finished, -1 before the first
    std::array<bool, order_count> running{};
    int completed = 0;  // distinct steps finished (sum of last_done + 1)
    int redeliveries = 0;
    int concurrent_violations = 0;
    int gap_violations = 0;
    std::vector<std::string> violations;  // the first few, for the failure message

    OrderBook() { last_done.fill(-1); }
};

}  // namespace

TEST_CASE("orderly under churn: every order's steps in sequence while members join and leave, none lost",
          "[scenario][orderly][churn]") {
    rmq::InProcessBroker broker;
    broker.create_topic("ChurnTopic", queue_count);

    Recorder rec;
    OrderBook book;
    auto listener = [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        for (const auto& msg : msgs) {
            const int order = std::stoi(std::string(msg.keys()));
            const int step = std::stoi(msg.body());
            rec.update([&] {
                auto& b = book;
                const auto o = static_cast<std::size_t>(order);
                if (b.running[o]) {
                    ++b.concurrent_violations;
                    if (b.violations.size() < 10) {
                        b.violations.push_back(fmt::format("order {} step {} ran concurrently", order, step));
                    }
                }
                b.running[o] = true;
                if (step > b.last_done[o] + 1) {
                    ++b.gap_violations;
                    if (b.violations.size() < 10) {
                        b.violations.push_back(fmt::format(
                            "order {} step {} started after step {} finished", order, step, b.last_done[o]));
                    }
                } else if (step <= b.last_done[o]) {
                    ++b.redeliveries;
                }
            });
            // Long enough for a rebalance to land in the middle of a step.
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            rec.update([&] {
                const auto o = static_cast<std::size_t>(order);
                book.running[o] = false;
                if (step > book.last_done[o]) {
                    book.completed += step - book.last_done[o];
                    book.last_done[o] = step;
                }
            });
        }
        return rmq::ConsumeOrderlyStatus::Success;
    };

    auto owns_queues = [](const OrderlyConsumer& c) {
        for (const auto& mq : c.assigned_queues()) {
            if (mq.topic == "ChurnTopic") {
                return true;
            }
        }
        return false;
    };
    // A joining member counts once it took over queues (locked at the broker) from the others.
    auto make_member = [&] {
        auto c = std::make_unique<OrderlyConsumer>(broker.connect(), fast_config("churn_group"));
        c->subscribe("ChurnTopic", "*");
        c->register_listener(listener);
        c->start();
        REQUIRE(scenario::eventually([&] { return owns_queues(*c); }));
        return c;
    };

    // Steps are produced step-major, so every queue keeps receiving while the membership changes.
    std::thread producer([&] {
        auto tr = broker.connect();
        for (int step = 0; step < step_count; ++step) {
            for (int order = 0; order < order_count; ++order) {
                rmq::Message msg("ChurnTopic", "TagA", std::to_string(order), std::to_string(step));
                (void)tr.send(msg, broker.queue("ChurnTopic", order % queue_count));
            }
            if (step % 10 == 9) {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        }
    });

    const int total = order_count * step_count;
    auto progress_at_least = [&](int n) {
        return rec.wait([&] { return book.completed >= n; });
    };

    auto m1 = make_member();
    REQUIRE(progress_at_least(total / 10));
    auto m2 = make_member();
    REQUIRE(progress_at_least(total / 4));
    auto m3 = make_member();
    REQUIRE(progress_at_least(2 * total / 5));
    m1->shutdown();  // leaves while the others consume
    m1.reset();
    REQUIRE(progress_at_least(total / 2));
    auto m4 = make_member();  // a member rejoins
    REQUIRE(progress_at_least(3 * total / 5));
    m2->shutdown();
    m2.reset();
    REQUIRE(progress_at_least(7 * total / 10));
    m3->shutdown();
    m3.reset();
    producer.join();

    const bool all_done = rec.wait([&] { return book.completed >= total; });
    m4->shutdown();

    rec.read([&] {
        INFO(fmt::format("completed {} of {}, redeliveries {}, violations: {}",
                         book.completed,
                         total,
                         book.redeliveries,
                         fmt::join(book.violations, "; ")));
        CHECK(all_done);
        CHECK(book.concurrent_violations == 0);
        CHECK(book.gap_violations == 0);
        for (int o = 0; o < order_count; ++o) {
            CHECK(book.last_done[static_cast<std::size_t>(o)] == step_count - 1);
        }
        return 0;
    });
    // Every queue's committed offset reached its end: nothing left behind.
    for (int q = 0; q < queue_count; ++q) {
        const auto mq = broker.queue("ChurnTopic", q);
        CHECK(broker.consumer_offset("churn_group", mq).value_or(-1) == broker.max_offset(mq));
    }
}
