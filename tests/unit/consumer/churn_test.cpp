// Orderly under churn (issue "Consumer"): 10 orders × 200 steps over 8 queues while three members join and
// leave. Every step is handled only after its predecessor finished, no queue is consumed by two members at
// once, and nothing is lost.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using consumer_test::fast_config;
using consumer_test::Recorder;

namespace {

using OrderlyConsumer =
    rmq::Consumer<rmq::Orderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

}  // namespace

TEST_CASE("orderly under churn: steps in sequence, none lost, one member per queue",
          "[consumer][orderly][churn]") {
    constexpr int queues = 8;
    constexpr int orders = 10;
    constexpr int steps = 200;
    rmq::InProcessBroker broker;
    broker.create_topic("Churn", queues);
    {
        auto tr = broker.connect();
        for (int step = 0; step < steps; ++step) {
            for (int order = 0; order < orders; ++order) {
                rmq::Message msg(
                    "Churn", "TagA", fmt::format("{}:{}", order, step));  // g++ 12 -O3: see key_orderly_test
                (void)tr.send(msg, broker.queue("Churn", order % queues));
            }
        }
    }

    Recorder rec;
    std::map<int, std::set<int>> finished;  // order → steps whose listener call returned
    std::map<int, int> in_flight;           // queue → listener calls running (over all members)
    std::vector<std::string> violations;
    std::size_t distinct = 0;
    int deliveries = 0;

    auto listener = [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext& ctx) {
        const int q = ctx.message_queue().queue_id;
        rec.update([&] {
            if (++in_flight[q] > 1) {
                violations.push_back("queue " + std::to_string(q) + " consumed by two members at once");
            }
            for (const auto& m : msgs) {
                const auto colon = m.body().find(':');
                const int order = std::stoi(m.body().substr(0, colon));
                const int step = std::stoi(m.body().substr(colon + 1));
                if (step > 0 && !finished[order].contains(step - 1)) {
                    violations.push_back("order " + std::to_string(order) + " step " + std::to_string(step) +
                                         " before its predecessor");
                }
            }
        });
        rec.update([&] {
            for (const auto& m : msgs) {
                const auto colon = m.body().find(':');
                const int order = std::stoi(m.body().substr(0, colon));
                const int step = std::stoi(m.body().substr(colon + 1));
                if (finished[order].insert(step).second) {
                    ++distinct;
                }
                ++deliveries;
            }
            --in_flight[q];
        });
        return rmq::ConsumeOrderlyStatus::Success;
    };
    auto make = [&] {
        auto c = std::make_unique<OrderlyConsumer>(broker.connect(), fast_config("churn_group"));
        c->subscribe("Churn", "*");
        c->register_listener(listener);
        c->start();
        return c;
    };
    const auto total = static_cast<std::size_t>(orders * steps);

    auto a = make();
    REQUIRE(rec.wait([&] { return distinct >= total / 8; }));
    auto b = make();
    REQUIRE(rec.wait([&] { return distinct >= total / 3; }));
    auto c = make();
    REQUIRE(rec.wait([&] { return distinct >= total / 2; }));
    a->shutdown();
    a.reset();
    REQUIRE(rec.wait([&] { return distinct >= total * 3 / 4; }));
    b->shutdown();
    b.reset();
    REQUIRE(rec.wait([&] { return distinct >= total; }));
    c->shutdown();

    rec.read([&] {
        CHECK(violations.empty());
        for (const auto& v : violations) {
            UNSCOPED_INFO(v);
        }
        CHECK(distinct == total);
        CHECK(deliveries >= static_cast<int>(total));  // duplicates allowed (at-least-once), losses not
        return 0;
    });
}
