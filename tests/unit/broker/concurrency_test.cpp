// Concurrent producers and long-polling pullers on a real clock (meant to run under TSan too).

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "broker_test_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/transport/in_process.hpp>

using broker_test::PullCatcher;

TEST_CASE("broker: concurrent producers and pullers see every message once, in queue order") {
    rmq::InProcessBroker broker;
    broker.create_topic("Conc", 4);
    constexpr int producers = 4;
    constexpr int per_producer = 400;
    constexpr int queues = 4;

    auto setup = broker.connect();
    rmq::HeartbeatData hb;
    hb.client_id = "c1";
    rmq::ConsumerData cd;
    cd.group_name = "G";
    cd.subscription_data_set.push_back(rmq::parse_subscription("Conc", "*"));
    hb.consumer_data_set.push_back(cd);
    setup.heartbeat(hb);

    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    std::vector<std::vector<std::string>> received(queues);
    for (int q = 0; q < queues; ++q) {
        threads.emplace_back([&, q] {
            auto t = broker.connect();
            std::int64_t offset = 0;
            const std::size_t expected = producers * per_producer / queues;
            while (received[static_cast<std::size_t>(q)].size() < expected) {
                rmq::PullArgs a;
                a.consumer_group = "G";
                a.mq = broker.queue("Conc", q);
                a.queue_offset = offset;
                a.sys_flag = rmq::pull_sys_flag::suspend | rmq::pull_sys_flag::commit_offset;
                a.commit_offset = offset;
                a.suspend_timeout_millis = 200;
                PullCatcher c;
                t.pull(a, c.callback());
                const auto r = c.wait_raw();  // Catch2 assertions are not thread-safe: count failures
                if (!r || !r->ok()) {
                    ++failures;
                    return;
                }
                for (const auto& m : r->value().msg_found_list) {
                    if (m.queue_offset() != offset) {
                        ++failures;
                    }
                    ++offset;
                    received[static_cast<std::size_t>(q)].push_back(m.body());
                }
                if (r->value().next_begin_offset != offset) {
                    ++failures;
                }
            }
        });
    }
    for (int p = 0; p < producers; ++p) {
        threads.emplace_back([&, p] {
            auto t = broker.connect();
            for (int i = 0; i < per_producer; ++i) {
                t.send(rmq::Message("Conc", "TagA", "", fmt::format("{}-{}", p, i)),
                       broker.queue("Conc", i % queues));
            }
        });
    }
    for (auto& th : threads) {
        th.join();
    }
    REQUIRE(failures.load() == 0);
    std::map<std::string, int> seen;
    for (int q = 0; q < queues; ++q) {
        // Each producer's messages to one queue keep their order.
        std::map<int, int> last_by_producer;
        for (const auto& body : received[static_cast<std::size_t>(q)]) {
            ++seen[body];
            const int p = std::stoi(body.substr(0, body.find('-')));
            const int i = std::stoi(body.substr(body.find('-') + 1));
            if (last_by_producer.contains(p)) {
                CHECK(i > last_by_producer[p]);
            }
            last_by_producer[p] = i;
        }
    }
    CHECK(seen.size() == static_cast<std::size_t>(producers * per_producer));
    for (const auto& [body, n] : seen) {
        CHECK(n == 1);
    }
    CHECK(broker.held_pull_count() == 0);
}

TEST_CASE("broker: concurrent heartbeats, locks and offsets from many threads") {
    rmq::InProcessBroker broker;
    broker.create_topic("Conc", 8);
    std::atomic<int> notifications{0};
    std::vector<std::thread> threads;
    std::atomic<int> granted{0};
    for (int c = 0; c < 4; ++c) {
        threads.emplace_back([&, c] {
            auto t = broker.connect();
            t.set_notification_handler([&](const rmq::ConsumerIdsChanged&) { ++notifications; });
            const std::string client = fmt::format("c{}", c);
            rmq::HeartbeatData hb;
            hb.client_id = client;
            rmq::ConsumerData cd;
            cd.group_name = "G";
            cd.subscription_data_set.push_back(rmq::parse_subscription("Conc", "*"));
            hb.consumer_data_set.push_back(cd);
            std::vector<rmq::MessageQueue> all;
            for (int q = 0; q < 8; ++q) {
                all.push_back(broker.queue("Conc", q));
            }
            for (int i = 0; i < 50; ++i) {
                t.heartbeat(hb);
                granted += static_cast<int>(t.lock_batch("G", client, all).size());
                t.update_consumer_offset("G", all[static_cast<std::size_t>(i % 8)], i);
                (void)t.consumer_id_list("Conc", "G");
            }
            t.unlock_batch("G", client, all);
        });
    }
    for (auto& th : threads) {
        th.join();
    }
    broker.drain();
    CHECK(granted.load() >= 8);
    CHECK(notifications.load() >= 1);
}
