// Commits: commit_sync, no commit, auto-commit, shutdown, a queue handed over in a rebalance.

#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

#include "lite_pull_support.hpp"

#include <catch2/catch.hpp>

using lite_pull_test::eventually;
using lite_pull_test::fast_config;
using lite_pull_test::LitePull;
using lite_pull_test::offsets_by_queue;
using lite_pull_test::poll_count;
using lite_pull_test::poll_for;
using lite_pull_test::produce;

TEST_CASE("lite pull: commit_sync persists the consume offsets, and a new consumer continues from there",
          "[lite_pull][commit]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpCommit", 2);
    produce(broker, "LpCommit", 2, 40);
    auto config = fast_config("cg_lp_commit");
    config.auto_commit = false;
    config.pull_batch_size = 4;
    std::map<int, std::int64_t> next;  // queue -> first offset not polled
    {
        LitePull first{broker.connect(), config};
        first.subscribe("LpCommit");
        first.start();
        for (const auto& [qid, offsets] : offsets_by_queue(poll_count(first, 12))) {
            next[qid] = offsets.back() + 1;
        }
        first.commit_sync();
        for (const auto& [qid, offset] : next) {
            CHECK(broker.consumer_offset("cg_lp_commit", broker.queue("LpCommit", qid)) == offset);
            CHECK(first.committed(broker.queue("LpCommit", qid)) == offset);
        }
        // Polled but not committed: lost to the next consumer's count, redelivered.
        (void)poll_count(first, 4);
    }
    LitePull second{broker.connect(), config};
    second.subscribe("LpCommit");
    second.start();
    const auto rest = poll_count(second, 40 - 12);
    REQUIRE(rest.size() == 28);
    for (const auto& [qid, offsets] : offsets_by_queue(rest)) {
        CHECK(offsets.front() == (next.contains(qid) ? next[qid] : 0));
    }
}

TEST_CASE("lite pull: without a commit nothing is committed, even once everything was polled",
          "[lite_pull][commit]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpNoCommit", 2);
    produce(broker, "LpNoCommit", 2, 20);
    auto config = fast_config("cg_lp_nocommit");
    config.auto_commit = false;
    {
        LitePull first{broker.connect(), config};
        first.subscribe("LpNoCommit");
        first.start();
        REQUIRE(poll_count(first, 20).size() == 20);
        // Pulls found nothing new on an empty cache several times over (no filtered-offset commit).
        CHECK(poll_for(first, std::chrono::milliseconds(600)).empty());
    }
    CHECK(broker.consumer_offset("cg_lp_nocommit", broker.queue("LpNoCommit", 0)).value_or(0) == 0);
    LitePull second{broker.connect(), config};
    second.subscribe("LpNoCommit");
    second.start();
    CHECK(poll_count(second, 20).size() == 20);
}

TEST_CASE("lite pull: auto-commit commits what earlier polls returned, and shutdown commits the rest",
          "[lite_pull][commit]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpAuto", 1);
    produce(broker, "LpAuto", 1, 20);
    auto config = fast_config("cg_lp_auto");
    config.auto_commit = true;
    config.auto_commit_interval_millis = 1000;
    config.pull_batch_size = 5;
    const auto mq = broker.queue("LpAuto", 0);
    {
        LitePull consumer{broker.connect(), config};
        consumer.assign({mq});
        consumer.start();
        const auto first = poll_count(consumer, 5);
        REQUIRE(first.size() == 5);
        CHECK(consumer.committed(mq) <= 0);  // returned, not committed until the next poll
        REQUIRE(poll_count(consumer, 5).size() == 5);
        CHECK(consumer.committed(mq) == 5);
        REQUIRE(eventually([&] { return broker.consumer_offset("cg_lp_auto", mq) == 5; }));
        REQUIRE(poll_count(consumer, 5).size() == 5);
        // shutdown commits the 15 polled
    }
    CHECK(broker.consumer_offset("cg_lp_auto", mq) == 15);
    LitePull next{broker.connect(), config};
    next.assign({mq});
    next.start();
    const auto rest = poll_count(next, 5);
    REQUIRE(rest.size() == 5);
    CHECK(rest.front().queue_offset() == 15);
}

TEST_CASE("lite pull: with auto-commit a queue that leaves is committed first", "[lite_pull][commit]") {
    rmq::InProcessBroker broker;
    broker.create_topic("LpLeave", 2);
    produce(broker, "LpLeave", 2, 20);
    auto config = fast_config("cg_lp_leave");
    config.auto_commit_interval_millis = 600000;  // only the queue leaving may persist
    LitePull consumer{broker.connect(), config};
    consumer.subscribe("LpLeave");
    consumer.start();
    // The last batch polled is committed by no later poll: only the queue leaving commits it.
    REQUIRE(poll_count(consumer, 20).size() == 20);
    consumer.unsubscribe("LpLeave");
    REQUIRE(eventually([&] { return consumer.assignment().empty(); }));
    CHECK(broker.consumer_offset("cg_lp_leave", broker.queue("LpLeave", 0)) == 10);
    CHECK(broker.consumer_offset("cg_lp_leave", broker.queue("LpLeave", 1)) == 10);
}
