// Store and pull rules of the embedded broker (docs/embedded-broker.md: Store, Pull, Filtering, Long
// polling).

#include <functional>
#include <string>
#include <vector>

#include "broker_test_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/protocol.hpp>
#include <rmq/transport/in_process.hpp>

using broker_test::Fixture;
using broker_test::PullCatcher;
using rmq::PullStatus;

static_assert(rmq::Transport<rmq::InProcessTransport>);

TEST_CASE("broker: send stores offsets, ids, timestamps and store size") {
    Fixture f;
    const auto r0 = f.send(1, "TagA", "hello");
    const auto r1 = f.send(1, "TagB", "world!");
    CHECK(r0.status == rmq::SendStatus::SendOk);
    CHECK(r0.queue_offset == 0);
    CHECK(r1.queue_offset == 1);
    CHECK(r0.message_queue == f.mq(1));
    CHECK(r0.offset_msg_id == "7F00000100002A9F0000000000000000");
    const auto msgs = f.broker->messages("TopicTest", 1);
    REQUIRE(msgs.size() == 2);
    CHECK(msgs[0].commit_log_offset() == 0);
    CHECK(msgs[1].commit_log_offset() == msgs[0].store_size());
    CHECK(r1.offset_msg_id == fmt::format("7F00000100002A9F{:016X}", msgs[0].store_size()));
    CHECK(msgs[0].store_timestamp() == f.clock->wall_millis());
    CHECK(msgs[0].store_host() == "127.0.0.1:10911");
    CHECK(msgs[0].broker_name() == "broker-a");
    CHECK(msgs[0].queue_id() == 1);
    CHECK(msgs[1].queue_offset() == 1);
    CHECK(msgs[0].tags() == "TagA");
    CHECK(msgs[0].body() == "hello");
    // CommitLog.calMsgLength: 91 fixed bytes + body + topic + properties string.
    const auto props = rmq::encode_properties(msgs[0].properties());
    CHECK(msgs[0].store_size() == static_cast<std::int32_t>(91 + 5 + 9 + props.size()));
    CHECK(msgs[0].body_crc() == 907060870);  // java.util.zip.CRC32("hello") = 0x3610A686
    CHECK(f.broker->max_offset(f.mq(1)) == 2);
    CHECK(f.broker->min_offset(f.mq(1)) == 0);
    CHECK(f.broker->max_offset(f.mq(0)) == 0);
}

TEST_CASE("broker: pull status and next offset for each getMessage rule") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "*");

    SECTION("empty queue, offset 0: NO_NEW_MSG, next 0") {
        const auto r = f.pull(f.args(0, 0));
        REQUIRE(r.ok());
        CHECK(r.value().status == PullStatus::NoNewMsg);
        CHECK(r.value().next_begin_offset == 0);
        CHECK(r.value().max_offset == 0);
    }
    SECTION("empty queue, offset != 0: OFFSET_ILLEGAL, next 0") {
        const auto r = f.pull(f.args(0, 7));
        REQUIRE(r.ok());
        CHECK(r.value().status == PullStatus::OffsetIllegal);
        CHECK(r.value().next_begin_offset == 0);
    }
    for (int i = 0; i < 10; ++i) {
        f.send(0, "TagA");
    }
    SECTION("offset == max: NO_NEW_MSG, next = offset") {
        const auto r = f.pull(f.args(0, 10));
        REQUIRE(r.ok());
        CHECK(r.value().status == PullStatus::NoNewMsg);
        CHECK(r.value().next_begin_offset == 10);
        CHECK(r.value().min_offset == 0);
        CHECK(r.value().max_offset == 10);
    }
    SECTION("offset > max: OFFSET_ILLEGAL, next = max") {
        const auto r = f.pull(f.args(0, 150));
        REQUIRE(r.ok());
        CHECK(r.value().status == PullStatus::OffsetIllegal);
        CHECK(r.value().next_begin_offset == 10);
    }
    SECTION("offset < min: OFFSET_ILLEGAL, next = min") {
        f.broker->delete_messages_before(f.mq(0), 4);
        CHECK(f.broker->min_offset(f.mq(0)) == 4);
        const auto r = f.pull(f.args(0, 2));
        REQUIRE(r.ok());
        CHECK(r.value().status == PullStatus::OffsetIllegal);
        CHECK(r.value().next_begin_offset == 4);
        CHECK(r.value().min_offset == 4);
        const auto ok = f.pull(f.args(0, 4));
        REQUIRE(ok.ok());
        CHECK(ok.value().status == PullStatus::Found);
        CHECK(ok.value().msg_found_list.size() == 6);
    }
    SECTION("FOUND: at most max_msg_nums, next = offset + scanned") {
        auto a = f.args(0, 3);
        a.max_msg_nums = 4;
        const auto r = f.pull(a);
        REQUIRE(r.ok());
        CHECK(r.value().status == PullStatus::Found);
        REQUIRE(r.value().msg_found_list.size() == 4);
        CHECK(r.value().msg_found_list.front().queue_offset() == 3);
        CHECK(r.value().msg_found_list.back().queue_offset() == 6);
        CHECK(r.value().next_begin_offset == 7);
        CHECK(r.value().suggest_which_broker_id == 0);
    }
}

TEST_CASE("broker: a pull returns at most max_transfer_count_on_message_in_memory messages") {
    rmq::BrokerConfig config;
    config.max_transfer_count_on_message_in_memory = 5;
    Fixture f(config);
    f.subscribe("G", "c1", "TopicTest", "*");
    for (int i = 0; i < 40; ++i) {
        f.send(2, "TagA");
    }
    const auto r = f.pull(f.args(2, 0));
    REQUIRE(r.ok());
    CHECK(r.value().msg_found_list.size() == 5);
    CHECK(r.value().next_begin_offset == 5);

    Fixture g;
    g.subscribe("G", "c1", "TopicTest", "*");
    for (int i = 0; i < 40; ++i) {
        g.send(2, "TagA");
    }
    auto a = g.args(2, 0);
    a.max_msg_nums = 100;
    const auto r2 = g.pull(a);
    REQUIRE(r2.ok());
    CHECK(r2.value().msg_found_list.size() == 32);  // default 32
    CHECK(r2.value().next_begin_offset == 32);
}

TEST_CASE("broker: the in-memory byte limit ends a batch") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "*");
    for (int i = 0; i < 5; ++i) {
        f.send(0, "TagA", std::string(100 * 1024, 'x'));
    }
    const auto r = f.pull(f.args(0, 0));
    REQUIRE(r.ok());
    CHECK(r.value().msg_found_list.size() == 2);  // 256 KiB per answer
    CHECK(r.value().next_begin_offset == 2);
}

TEST_CASE("broker: tag filtering by hash code skips non-matching units by offset") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "TagA || TagC");
    f.send(0, "TagB");
    f.send(0, "TagA");
    f.send(0, "TagB");
    f.send(0, "TagC");
    f.send(0, "");
    f.send(0, "TagB");
    const auto r = f.pull(f.args(0, 0));
    REQUIRE(r.ok());
    CHECK(r.value().status == PullStatus::Found);
    REQUIRE(r.value().msg_found_list.size() == 2);
    CHECK(r.value().msg_found_list[0].queue_offset() == 1);
    CHECK(r.value().msg_found_list[1].queue_offset() == 3);
    CHECK(r.value().next_begin_offset == 6);  // every scanned unit counts

    const auto none = f.pull(f.args(0, 4));
    REQUIRE(none.ok());
    CHECK(none.value().status == PullStatus::NoMatchedMsg);
    CHECK(none.value().next_begin_offset == 6);
}

TEST_CASE("broker: hash collisions pass the broker filter (\"Aa\" and \"BB\")") {
    Fixture f;
    REQUIRE(rmq::tag_hash("Aa") == rmq::tag_hash("BB"));
    f.subscribe("G", "c1", "TopicTest", "Aa");
    f.send(0, "BB");
    f.send(0, "Aa");
    f.send(0, "Ab");
    const auto r = f.pull(f.args(0, 0));
    REQUIRE(r.ok());
    REQUIRE(r.value().msg_found_list.size() == 2);
    CHECK(r.value().msg_found_list[0].tags() == "BB");
    CHECK(r.value().msg_found_list[1].tags() == "Aa");
    CHECK(r.value().next_begin_offset == 3);
}

TEST_CASE("broker: a pull scans at most max(16000 B, 20 x maxMsgNums) of consume queue") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "TagA");
    for (int i = 0; i < 1000; ++i) {
        f.send(0, "TagB", "b");
    }
    f.send(0, "TagA", "a");
    const auto r = f.pull(f.args(0, 0));
    REQUIRE(r.ok());
    CHECK(r.value().status == PullStatus::NoMatchedMsg);
    CHECK(r.value().next_begin_offset == 800);
    auto big = f.args(0, 0);
    big.max_msg_nums = 1000;  // 20000 bytes -> 1000 units
    const auto r2 = f.pull(big);
    REQUIRE(r2.ok());
    CHECK(r2.value().status == PullStatus::NoMatchedMsg);
    CHECK(r2.value().next_begin_offset == 1000);
    const auto r3 = f.pull(f.args(0, 800));
    REQUIRE(r3.ok());
    CHECK(r3.value().status == PullStatus::Found);
    REQUIRE(r3.value().msg_found_list.size() == 1);
    CHECK(r3.value().msg_found_list[0].queue_offset() == 1000);
    CHECK(r3.value().next_begin_offset == 1001);
}

TEST_CASE("broker: the stored subscription filters unless the SUBSCRIPTION flag is set") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "TagB");
    f.send(0, "TagA");
    f.send(0, "TagB");
    const auto stored = f.pull(f.args(0, 0));
    REQUIRE(stored.ok());
    REQUIRE(stored.value().msg_found_list.size() == 1);
    CHECK(stored.value().msg_found_list[0].tags() == "TagB");

    auto a = f.args(0, 0, rmq::pull_sys_flag::subscription);
    a.subscription = "TagA";
    const auto own = f.pull(a);
    REQUIRE(own.ok());
    REQUIRE(own.value().msg_found_list.size() == 1);
    CHECK(own.value().msg_found_list[0].tags() == "TagA");

    a.subscription = "||";
    const auto bad = f.pull(a);
    CHECK(bad.code() == rmq::response_code::subscription_parse_failed);

    a.subscription = "a > 1";
    a.expression_type = "SQL92";
    const auto sql = f.pull(a);
    CHECK(sql.code() == rmq::response_code::system_error);
}

TEST_CASE("broker: subscription errors are Outcome errors") {
    Fixture f;
    f.send(0, "TagA");
    const auto no_group = f.pull(f.args(0, 0));
    CHECK_FALSE(no_group.ok());
    CHECK(no_group.code() == rmq::response_code::subscription_not_exist);

    f.subscribe("G", "c1", "Other", "*", 100);
    f.broker->create_topic("Other", 1);
    const auto no_topic = f.pull(f.args(0, 0));
    CHECK(no_topic.code() == rmq::response_code::subscription_not_exist);

    f.subscribe("G", "c1", "TopicTest", "*", 100);
    auto newer = f.args(0, 0);
    newer.sub_version = 101;
    CHECK(f.pull(newer).code() == rmq::response_code::subscription_not_latest);
    newer.sub_version = 100;
    CHECK(f.pull(newer).ok());

    auto unknown_topic = f.args(0, 0);
    unknown_topic.mq.topic = "Nope";
    CHECK(f.pull(unknown_topic).code() == rmq::response_code::topic_not_exist);

    auto bad_queue = f.args(9, 0);
    CHECK(f.pull(bad_queue).code() == rmq::response_code::system_error);
}

TEST_CASE("broker: unknown subscription group without auto-create") {
    rmq::BrokerConfig config;
    config.auto_create_subscription_group = false;
    Fixture f(config);
    f.subscribe("G", "c1", "TopicTest", "*");  // registered, but no retry topic without the group config
    CHECK(f.broker->group_members("G").size() == 1);
    CHECK_FALSE(f.broker->has_topic("%RETRY%G"));
    CHECK(f.pull(f.args(0, 0)).code() == rmq::response_code::subscription_group_not_exist);
    f.broker->create_subscription_group("G");
    f.subscribe("G", "c1", "TopicTest", "*");
    CHECK(f.broker->has_topic("%RETRY%G"));
    CHECK(f.pull(f.args(0, 0)).ok());
}

TEST_CASE("broker: the COMMIT_OFFSET flag stores the group's offset") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "*");
    f.send(0, "TagA");
    auto a = f.args(0, 0, rmq::pull_sys_flag::commit_offset);
    a.commit_offset = 42;
    REQUIRE(f.pull(a).ok());
    CHECK(f.broker->consumer_offset("G", f.mq(0)) == 42);
    auto no_flag = f.args(0, 0);
    no_flag.commit_offset = 7;
    REQUIRE(f.pull(no_flag).ok());
    CHECK(f.broker->consumer_offset("G", f.mq(0)) == 42);
    // Committed even when the result is an error status such as OFFSET_ILLEGAL.
    auto illegal = f.args(0, 99, rmq::pull_sys_flag::commit_offset);
    illegal.commit_offset = 43;
    REQUIRE(f.pull(illegal).ok());
    CHECK(f.broker->consumer_offset("G", f.mq(0)) == 43);
}

TEST_CASE("broker: consumer offsets and the QUERY_CONSUMER_OFFSET rule") {
    Fixture f;
    auto& t = *f.transport;
    CHECK(t.query_consumer_offset("G", f.mq(0)) == 0);  // nothing stored, queue starts at 0: "0"
    CHECK_FALSE(f.broker->consumer_offset("G", f.mq(0)).has_value());
    t.update_consumer_offset("G", f.mq(0), 5);
    CHECK(t.query_consumer_offset("G", f.mq(0)) == 5);
    t.update_consumer_offset("G", f.mq(0), 3);  // overwrite, even smaller
    CHECK(t.query_consumer_offset("G", f.mq(0)) == 3);
    CHECK(t.query_consumer_offset("H", f.mq(0)) == 0);
    for (int i = 0; i < 5; ++i) {
        f.send(1, "TagA");
    }
    f.broker->delete_messages_before(f.mq(1), 2);
    CHECK_FALSE(t.query_consumer_offset("G", f.mq(1)).has_value());  // QUERY_NOT_FOUND
    CHECK_THROWS_AS(t.update_consumer_offset("G", f.mq(0), -1), rmq::InvalidArgument);
    CHECK(t.query_consumer_offset("G", f.mq(0)) == 3);
}

TEST_CASE("broker: min, max and search offset") {
    Fixture f;
    auto& t = *f.transport;
    const auto t0 = f.clock->wall_millis();
    f.send(0, "TagA");
    f.clock->advance(rmq::Millis(1000));
    f.send(0, "TagA");
    f.send(0, "TagA");
    f.clock->advance(rmq::Millis(1000));
    f.send(0, "TagA");
    CHECK(t.min_offset(f.mq(0)) == 0);
    CHECK(t.max_offset(f.mq(0)) == 4);
    CHECK(t.search_offset(f.mq(0), t0 - 1) == 0);
    CHECK(t.search_offset(f.mq(0), t0) == 0);
    CHECK(t.search_offset(f.mq(0), t0 + 1) == 1);
    CHECK(t.search_offset(f.mq(0), t0 + 1000) == 1);
    CHECK(t.search_offset(f.mq(0), t0 + 1500) == 3);
    CHECK(t.search_offset(f.mq(0), t0 + 5000) == 4);
    CHECK(t.max_offset(f.mq(3)) == 0);
}

TEST_CASE("broker: long polling answers when a matching message arrives") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "TagA");
    PullCatcher c;
    f.transport->pull(f.args(0, 0, rmq::pull_sys_flag::suspend), c.callback());
    CHECK(f.broker->held_pull_count() == 1);
    f.send(0, "TagB");  // does not match: stays parked
    f.broker->drain();
    CHECK_FALSE(c.done());
    CHECK(f.broker->held_pull_count() == 1);
    f.send(1, "TagA");  // other queue
    f.broker->drain();
    CHECK_FALSE(c.done());
    f.send(0, "TagA");
    const auto r = c.wait();
    REQUIRE(r.ok());
    CHECK(r.value().status == PullStatus::Found);
    REQUIRE(r.value().msg_found_list.size() == 1);
    CHECK(r.value().msg_found_list[0].queue_offset() == 1);
    CHECK(r.value().next_begin_offset == 2);
    CHECK(f.broker->held_pull_count() == 0);
}

TEST_CASE("broker: long polling times out on the clock with NO_NEW_MSG") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "*");
    PullCatcher c;
    auto a = f.args(0, 0, rmq::pull_sys_flag::suspend | rmq::pull_sys_flag::commit_offset);
    a.suspend_timeout_millis = 15000;
    a.commit_offset = 9;
    f.transport->pull(a, c.callback());
    CHECK(f.broker->consumer_offset("G", f.mq(0)) == 9);  // committed on the first pass
    f.clock->advance(rmq::Millis(14999));
    f.broker->drain();
    CHECK_FALSE(c.done());
    f.clock->advance(rmq::Millis(1));
    const auto r = c.wait();
    REQUIRE(r.ok());
    CHECK(r.value().status == PullStatus::NoNewMsg);
    CHECK(r.value().next_begin_offset == 0);
    CHECK(f.broker->held_pull_count() == 0);
}

TEST_CASE("broker: short polling holds for short_polling_time_mills") {
    rmq::BrokerConfig config;
    config.long_polling_enable = false;
    Fixture f(config);
    f.subscribe("G", "c1", "TopicTest", "*");
    PullCatcher c;
    f.transport->pull(f.args(0, 0, rmq::pull_sys_flag::suspend), c.callback());
    f.clock->advance(rmq::Millis(999));
    f.broker->drain();
    CHECK_FALSE(c.done());
    f.clock->advance(rmq::Millis(1));
    CHECK(c.wait().value().status == PullStatus::NoNewMsg);
}

TEST_CASE("broker: pulls without SUSPEND and results other than NOT_FOUND are never held") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "*");
    f.send(0, "TagA");
    PullCatcher illegal;
    f.transport->pull(f.args(0, 5, rmq::pull_sys_flag::suspend), illegal.callback());
    CHECK(illegal.wait().value().status == PullStatus::OffsetIllegal);
    CHECK(f.pull(f.args(0, 1)).value().status == PullStatus::NoNewMsg);
    CHECK(f.broker->held_pull_count() == 0);
}

TEST_CASE("broker: destroying the broker answers held pulls and later calls fail cleanly") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "*");
    PullCatcher c;
    f.transport->pull(f.args(0, 0, rmq::pull_sys_flag::suspend), c.callback());
    f.broker.reset();
    const auto r = c.wait();
    CHECK(r.code() == rmq::response_code::system_error);
    PullCatcher after;
    f.transport->pull(f.args(0, 0, rmq::pull_sys_flag::suspend), after.callback());
    CHECK(after.wait().code() == rmq::response_code::system_error);
    CHECK_THROWS_AS(f.send(0, "TagA"), rmq::BrokerError);
    f.clock->advance(rmq::Millis(100000));  // the listener is gone
}

TEST_CASE("broker: the 5 s hold check wakes a held pull whose queue grew with non-matching messages") {
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "TagA");
    f.clock->advance(
        rmq::Millis(1000));  // the hold service ticks at 5000, 10000, ... from the broker's start
    PullCatcher c;
    auto a = f.args(0, 0, rmq::pull_sys_flag::suspend);
    a.suspend_timeout_millis = 15000;
    f.transport->pull(a, c.callback());
    f.send(0, "TagB");
    f.send(0, "TagB");
    f.clock->advance(rmq::Millis(3999));
    f.broker->drain();
    CHECK_FALSE(c.done());
    f.clock->advance(rmq::Millis(1));  // tick at 5000: the queue grew, the pull re-runs
    const auto r = c.wait();
    REQUIRE(r.ok());
    CHECK(r.value().status == PullStatus::NoMatchedMsg);
    CHECK(r.value().next_begin_offset == 2);

    // A held pull on a queue that did not grow stays held across ticks until its timeout.
    PullCatcher idle;
    auto b = f.args(1, 0, rmq::pull_sys_flag::suspend);
    b.suspend_timeout_millis = 15000;
    f.transport->pull(b, idle.callback());
    f.clock->advance(rmq::Millis(14999));
    f.broker->drain();
    CHECK_FALSE(idle.done());
    f.clock->advance(rmq::Millis(1));
    CHECK(idle.wait().value().status == PullStatus::NoNewMsg);
}

TEST_CASE(
    "broker: a pull answered at once completes through the caller's post, a held one on the dispatcher") {
    static_assert(rmq::HasPullPostingToCaller<rmq::InProcessTransport>);
    Fixture f;
    f.subscribe("G", "c1", "TopicTest", "*");
    f.send(0, "TagA", "first");
    std::vector<std::function<void()>> posted;
    const rmq::PostToCaller post = [&posted](std::function<void()> task) {
        posted.push_back(std::move(task));
    };

    SECTION("messages found: posted, never dispatched, run when the caller runs the task") {
        PullCatcher c;
        f.transport->pull(f.args(0, 0, rmq::pull_sys_flag::suspend), c.callback(), post);
        f.broker->drain();
        CHECK_FALSE(c.done());  // neither inline nor on the dispatcher
        REQUIRE(posted.size() == 1);
        posted.front()();
        REQUIRE(c.done());
        const auto r = c.wait();
        REQUIRE(r.ok());
        CHECK(r.value().status == PullStatus::Found);
        REQUIRE(r.value().msg_found_list.size() == 1);
        CHECK(r.value().msg_found_list[0].body() == "first");
    }
    SECTION("an immediate error is posted too") {
        PullCatcher c;
        auto a = f.args(0, 0, 0);
        a.consumer_group.clear();
        f.transport->pull(a, c.callback(), post);
        f.broker->drain();
        CHECK_FALSE(c.done());
        REQUIRE(posted.size() == 1);
        posted.front()();
        CHECK_FALSE(c.wait().ok());
    }
    SECTION("nothing new yet: held, then answered on the dispatcher without the post") {
        PullCatcher c;
        f.transport->pull(f.args(0, 1, rmq::pull_sys_flag::suspend), c.callback(), post);
        CHECK(f.broker->held_pull_count() == 1);
        f.send(0, "TagA", "second");
        const auto r = c.wait();
        REQUIRE(r.ok());
        CHECK(r.value().status == PullStatus::Found);
        CHECK(posted.empty());
    }
}
