#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/clock.hpp>
#include <rmq/stats.hpp>

using rmq::detail::StatsCollector;

namespace {
std::shared_ptr<rmq::ManualClock> manual() {
    return std::make_shared<rmq::ManualClock>();
}
}  // namespace

TEST_CASE("stats: averages and rates over the last minute", "[stats]") {
    auto clock = manual();
    StatsCollector s(clock);
    clock->advance(rmq::Millis(20'000));
    s.record_pull_rt("T", 10);
    s.record_pull_rt("T", 30);
    s.record_pulled("T", 200);
    s.record_consume_rt("T", 4);
    s.record_consume_rt("T", 6);
    s.record_consume_ok("T", 150);
    s.record_consume_failed("T", 50);
    clock->advance(rmq::Millis(20'000));  // 40 s since start: the window spans the 40 s seen so far
    const auto t = s.topic("T");
    CHECK(t.topic == "T");
    CHECK(t.pull_rt == Approx(20.0));
    CHECK(t.pull_tps == Approx(200.0 / 40.0));
    CHECK(t.consume_rt == Approx(5.0));
    CHECK(t.consume_ok_tps == Approx(150.0 / 40.0));
    CHECK(t.consume_failed_tps == Approx(50.0 / 40.0));
    CHECK(t.consume_failed_msgs == 50);
}

TEST_CASE("stats: the minute window forgets, the hour window keeps failures and consume RT", "[stats]") {
    auto clock = manual();
    StatsCollector s(clock);
    s.record_consume_rt("T", 8);
    s.record_consume_failed("T", 3);
    s.record_consume_ok("T", 5);
    clock->advance(rmq::Millis(120'000));
    auto t = s.topic("T");
    CHECK(t.consume_ok_tps == 0.0);
    CHECK(t.consume_failed_tps == 0.0);
    CHECK(t.consume_failed_msgs == 3);
    CHECK(t.consume_rt == Approx(8.0));  // minute saw no call: falls back to the hour
    s.record_consume_rt("T", 2);
    t = s.topic("T");
    CHECK(t.consume_rt == Approx(2.0));
    clock->advance(rmq::Millis(2 * 3'600'000));
    t = s.topic("T");
    CHECK(t.consume_failed_msgs == 0);
    CHECK(t.consume_rt == 0.0);
}

TEST_CASE("stats: a steady rate reads the same whatever the bucket phase", "[stats]") {
    auto clock = manual();
    StatsCollector s(clock);
    // 100 messages per second for five minutes, recorded once per second.
    for (int i = 0; i < 300; ++i) {
        clock->advance(rmq::Millis(1000));
        s.record_consume_ok("T", 100);
        if (i > 70) {
            INFO("second " << i);
            CHECK(s.topic("T").consume_ok_tps == Approx(100.0).epsilon(0.03));
        }
    }
}

TEST_CASE("stats: unknown topics read as zeros, snapshot lists topics in order", "[stats]") {
    auto clock = manual();
    StatsCollector s(clock);
    CHECK(s.topic("none").pull_tps == 0.0);
    s.record_pulled("b", 1);
    s.record_pulled("a", 1);
    const auto snap = s.snapshot();
    REQUIRE(snap.topics.size() == 2);
    CHECK(snap.topics[0].topic == "a");
    CHECK(snap.topics[1].topic == "b");
}

TEST_CASE("stats: queues with lag, subscription flag, damaged records", "[stats]") {
    StatsCollector s(manual());
    rmq::QueueStats q;
    q.mq = rmq::MessageQueue{"T", "b", 1};
    q.commit_offset = 90;
    q.broker_max_offset = 100;
    q.cached_msg_count = 7;
    q.cached_msg_bytes = 700;
    s.set_queue(q);
    rmq::QueueStats unknown;
    unknown.mq = rmq::MessageQueue{"T", "b", 0};
    s.set_queue(unknown);
    s.set_subscription_inconsistent(true, "broker has tag A, client has tag B");
    s.add_damaged_records(2);
    s.add_damaged_records(1);
    auto snap = s.snapshot();
    REQUIRE(snap.queues.size() == 2);
    CHECK(snap.queues[0].mq.queue_id == 0);
    CHECK(snap.queues[0].lag == 0);
    CHECK(snap.queues[1].lag == 10);
    CHECK(snap.queues[1].cached_msg_count == 7);
    CHECK(snap.queues[1].cached_msg_bytes == 700);
    CHECK(snap.subscription_inconsistent);
    CHECK(snap.subscription_inconsistent_detail == "broker has tag A, client has tag B");
    CHECK(snap.damaged_records == 3);

    s.remove_queue(q.mq);
    s.set_subscription_inconsistent(false);
    snap = s.snapshot();
    CHECK(snap.queues.size() == 1);
    CHECK_FALSE(snap.subscription_inconsistent);
    CHECK(snap.subscription_inconsistent_detail.empty());
}

TEST_CASE("stats: concurrent recording loses nothing", "[stats][threads]") {
    auto clock = manual();
    StatsCollector s(clock);
    clock->advance(rmq::Millis(5'000));
    constexpr int threads = 4;
    constexpr int per_thread = 5000;
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&s, t] {
            const std::string topic = t % 2 == 0 ? "even" : "odd";
            for (int i = 0; i < per_thread; ++i) {
                s.record_consume_ok(topic, 1);
                s.record_consume_rt(topic, 2);
                if (i % 100 == 0) {
                    (void)s.snapshot();
                }
            }
        });
    }
    for (auto& w : workers) {
        w.join();
    }
    // 5 s since start, everything in the current bucket.
    for (const auto* name : {"even", "odd"}) {
        const auto t = s.topic(name);
        CHECK(t.consume_ok_tps == Approx(2.0 * per_thread / 5.0));
        CHECK(t.consume_rt == Approx(2.0));
    }
}

TEST_CASE("stats: record_consume equals the three separate calls, zero counts included", "[stats]") {
    auto clock_a = manual();
    auto clock_b = manual();
    StatsCollector one(clock_a);
    StatsCollector three(clock_b);
    clock_a->advance(rmq::Millis(10'000));
    clock_b->advance(rmq::Millis(10'000));
    one.record_consume("T", 4, 30, 2);
    one.record_consume("T", 8, 0, 5);
    one.record_consume("T", 6, 7, 0);
    three.record_consume_rt("T", 4);
    three.record_consume_ok("T", 30);
    three.record_consume_failed("T", 2);
    three.record_consume_rt("T", 8);
    three.record_consume_failed("T", 5);
    three.record_consume_rt("T", 6);
    three.record_consume_ok("T", 7);
    clock_a->advance(rmq::Millis(10'000));
    clock_b->advance(rmq::Millis(10'000));
    const auto a = one.topic("T");
    const auto b = three.topic("T");
    CHECK(a.consume_rt == Approx(6.0));
    CHECK(a.consume_rt == Approx(b.consume_rt));
    CHECK(a.consume_ok_tps == Approx(37.0 / 20.0));
    CHECK(a.consume_ok_tps == Approx(b.consume_ok_tps));
    CHECK(a.consume_failed_tps == Approx(b.consume_failed_tps));
    CHECK(a.consume_failed_msgs == 7);
    CHECK(a.consume_failed_msgs == b.consume_failed_msgs);
}

TEST_CASE("stats: totals count since start and never forget, the histogram buckets listener times",
          "[stats]") {
    auto clock = manual();
    StatsCollector s(clock);
    s.record_pulled("T", 10);
    s.record_consume("T", 1, 4, 1);  // le 1
    s.record_consume("T", 5, 3, 0);  // le 5 (bounds are inclusive)
    s.record_consume_rt("T", 6);     // le 10
    s.record_consume_ok("T", 2);
    s.record_consume_failed("T", 2);
    s.record_consume("T", 70'000, 0, 0);         // above 60 s: the +Inf bucket
    clock->advance(rmq::Millis(3 * 3'600'000));  // both windows are empty now; the totals are not
    const auto t = s.topic("T");
    CHECK(t.pull_tps == 0.0);
    CHECK(t.pulled_msgs_total == 10);
    CHECK(t.consume_ok_total == 9);
    CHECK(t.consume_failed_total == 3);
    CHECK(t.process_time.bounds ==
          std::vector<double>(rmq::process_time_buckets.begin(), rmq::process_time_buckets.end()));
    CHECK(t.process_time.counts == std::vector<std::int64_t>{1, 1, 1, 0, 0, 0, 0, 1});
    CHECK(t.process_time.count == 4);
    CHECK(t.process_time.sum == 70'012.0);
    CHECK(s.topic("Unseen").process_time.counts.empty());
}

TEST_CASE("stats: send-back and DLQ counters reach the snapshot", "[stats]") {
    StatsCollector s(manual());
    s.record_send_back(true);
    s.record_send_back(true);
    s.record_send_back(false);
    s.record_sent_to_dlq();
    const auto snap = s.snapshot();
    CHECK(snap.send_back_total == 2);
    CHECK(snap.send_back_failed_total == 1);
    CHECK(snap.sent_to_dlq_total == 1);
}

TEST_CASE("stats: a producer send counts as failed exactly when it throws", "[stats]") {
    auto clock = manual();
    rmq::detail::ProducerStatsCollector p;
    {
        const rmq::detail::SendRecorder r(p, "T", clock);
        clock->advance(rmq::Millis(7));
    }
    try {
        const rmq::detail::SendRecorder r(p, "T", clock);
        clock->advance(rmq::Millis(600));
        throw std::runtime_error("send failed");
    } catch (const std::runtime_error&) {
    }
    const auto snap = p.snapshot();
    REQUIRE(snap.topics.size() == 1);
    const auto& t = snap.topics[0];
    CHECK(t.topic == "T");
    CHECK(t.send_ok_total == 1);
    CHECK(t.send_failed_total == 1);
    CHECK(t.send_cost_time_ok.counts == std::vector<std::int64_t>{0, 0, 1, 0, 0, 0, 0, 0});  // 7 ms: le 10
    CHECK(t.send_cost_time_failed.counts == std::vector<std::int64_t>{0, 0, 0, 0, 0, 0, 0, 1});
    CHECK(t.send_cost_time_failed.sum == 600.0);
}

TEST_CASE("stats: the periodic log line names topic and group and carries the figures", "[stats]") {
    rmq::ConsumerStats s;
    rmq::TopicStats t{"T"};
    t.pull_tps = 1.5;
    t.consume_ok_total = 42;
    s.topics.push_back(t);
    rmq::QueueStats q;
    q.mq = rmq::MessageQueue{"T", "b", 0};
    q.cached_msg_count = 5;
    q.cached_msg_bytes = 50;
    s.queues.push_back(q);
    const auto lines = rmq::stats_log_lines(s, "G");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].starts_with("[ConsumeStats] [T@G] Stats In One Minute, PULL_TPS: 1.50 "));
    CHECK(lines[0].find("CACHED: 5 msgs 50 bytes") != std::string::npos);
    CHECK(lines[0].find("ok 42 ") != std::string::npos);
}

TEST_CASE("stats: collectors recording one topic on one thread keep their own figures, a new one at a reused "
          "address too",
          "[stats]") {
    auto clock = manual();
    clock->advance(rmq::Millis(10'000));
    auto first = std::make_unique<StatsCollector>(clock);
    StatsCollector second(clock);
    // One thread alternates between the collectors: each keeps its own counts (a thread remembers the last
    // topic it recorded for, and whose it was).
    first->record_consume_ok("T", 5);
    second.record_consume_ok("T", 7);
    first->record_consume_ok("T", 1);
    second.record_consume_ok("U", 2);
    second.record_consume_ok("T", 3);
    CHECK(first->topic("T").consume_ok_total == 6);
    CHECK(second.topic("T").consume_ok_total == 10);
    CHECK(second.topic("U").consume_ok_total == 2);
    // A collector made where the first one was starts from zero.
    first->record_consume_ok("T", 4);
    first.reset();
    auto third = std::make_unique<StatsCollector>(clock);
    third->record_consume_ok("T", 1);
    CHECK(third->topic("T").consume_ok_total == 1);
    // Another thread records into the same counters.
    std::thread([&] { third->record_consume_ok("T", 2); }).join();
    CHECK(third->topic("T").consume_ok_total == 3);
}
