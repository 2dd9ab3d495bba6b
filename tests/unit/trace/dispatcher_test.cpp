// The trace dispatcher: bounded (a full queue drops and counts, the appending thread never waits), batches
// by traced topic, sends on its own thread, keeps trace messages under the size limit.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/trace.hpp>

#include <rmq/detail/trace/dispatcher.hpp>

namespace trace_dispatcher_test {

namespace {

using rmq::detail::trace::Dispatcher;
using rmq::detail::trace::DispatcherOptions;

/// Records the trace messages sent; blocks the sending thread while `hold` is set.
struct Sink {
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<rmq::Message> sent;
    int calls = 0;
    bool hold = false;
    bool fail = false;

    rmq::detail::trace::TraceSend sender() {
        return [this](const rmq::Message& m, const rmq::detail::trace::TraceSendDone& done) {
            std::unique_lock lock(mutex);
            ++calls;
            cv.notify_all();
            cv.wait(lock, [this] { return !hold; });
            if (fail) {
                lock.unlock();
                done(std::make_exception_ptr(rmq::Error("trace topic unreachable")));
                return;
            }
            sent.push_back(m);
            lock.unlock();
            done(nullptr);
        };
    }

    template <class P>
    bool wait(P pred) {
        std::unique_lock lock(mutex);
        return cv.wait_for(lock, std::chrono::seconds(30), pred);
    }

    void release() {
        {
            const std::lock_guard lock(mutex);
            hold = false;
        }
        cv.notify_all();
    }
};

rmq::TraceContext pub(const std::string& topic, int i, std::size_t padding = 0) {
    rmq::TraceContext c;
    c.trace_type = rmq::TraceType::Pub;
    c.time_stamp = 1000 + i;
    c.region_id = "DefaultRegion";
    c.group_name = "PG";
    auto& b = c.trace_beans.emplace_back();
    b.topic = topic;
    b.msg_id = fmt::format("ID{:04}", i);
    b.keys = fmt::format("K{}", i);
    b.tags = std::string(padding, 't');
    return c;
}

std::vector<std::string> ids_in(const rmq::Message& m) {
    std::vector<std::string> ids;
    for (const auto& c : rmq::decode_trace_data(m.body())) {
        ids.push_back(*c.trace_beans.front().msg_id);
    }
    return ids;
}

}  // namespace

TEST_CASE("a full trace queue drops records and counts them, never blocking the caller", "[trace]") {
    Sink sink;
    sink.hold = true;
    auto clock = std::make_shared<rmq::ManualClock>();
    Dispatcher d(
        DispatcherOptions{.trace_topic = "TT", .queue_capacity = 4, .batch_num = 1}, sink.sender(), clock);
    d.start();
    REQUIRE(d.append(pub("T", 0)));
    REQUIRE(sink.wait([&] { return sink.calls == 1; }));  // the drain thread is stuck in its send
    int accepted = 0;
    for (int i = 1; i <= 7; ++i) {
        accepted += d.append(pub("T", i)) ? 1 : 0;
    }
    CHECK(accepted == 4);
    CHECK(d.stats().dropped == 3);
    CHECK(d.stats().appended == 5);
    sink.release();
    d.shutdown();
    CHECK(d.stats().messages_sent == 5);
    std::vector<std::string> ids;
    for (const auto& m : sink.sent) {
        for (const auto& id : ids_in(m)) {
            ids.push_back(id);
        }
    }
    CHECK(ids == std::vector<std::string>{"ID0000", "ID0001", "ID0002", "ID0003", "ID0004"});
}

TEST_CASE("trace records are sent in batches, one message per traced topic, keyed by ids and keys",
          "[trace]") {
    Sink sink;
    auto clock = std::make_shared<rmq::ManualClock>();
    Dispatcher d(DispatcherOptions{.trace_topic = "TT", .batch_num = 3}, sink.sender(), clock);
    d.start();
    d.append(pub("A", 1));
    d.append(pub("B", 2));
    d.append(pub("A", 3));
    REQUIRE(sink.wait([&] { return sink.sent.size() == 2; }));
    {
        const std::lock_guard lock(sink.mutex);
        const auto& a = sink.sent[0];  // groups go out in topic order
        CHECK(a.topic() == "TT");
        CHECK(ids_in(a) == std::vector<std::string>{"ID0001", "ID0003"});
        CHECK(a.keys() == "ID0001 ID0003 K1 K3");
        CHECK(ids_in(sink.sent[1]) == std::vector<std::string>{"ID0002"});
    }
    // Fewer than batch_num records wait for the flush interval (on the client's clock).
    d.append(pub("A", 4));
    clock->advance(std::chrono::milliseconds(5000));
    REQUIRE(sink.wait([&] { return sink.sent.size() == 3; }));
    d.shutdown();
    CHECK(ids_in(sink.sent[2]) == std::vector<std::string>{"ID0004"});
}

TEST_CASE("shutdown sends every queued record", "[trace]") {
    Sink sink;
    auto clock = std::make_shared<rmq::ManualClock>();
    Dispatcher d(DispatcherOptions{.trace_topic = "TT", .batch_num = 20}, sink.sender(), clock);
    d.start();
    for (int i = 0; i < 45; ++i) {
        d.append(pub("A", i));
    }
    d.shutdown();
    std::size_t records = 0;
    for (const auto& m : sink.sent) {
        records += ids_in(m).size();
    }
    CHECK(records == 45);
    CHECK(d.stats().dropped == 0);
}

TEST_CASE("a trace message stays under the size limit", "[trace]") {
    Sink sink;
    auto clock = std::make_shared<rmq::ManualClock>();
    Dispatcher d(
        DispatcherOptions{.trace_topic = "TT", .batch_num = 5, .max_msg_size = 400}, sink.sender(), clock);
    d.start();
    for (int i = 0; i < 5; ++i) {
        d.append(pub("A", i, 250));  // ~300 bytes each: two would pass the limit
    }
    d.shutdown();
    std::size_t records = 0;
    for (const auto& m : sink.sent) {
        CHECK(m.body().size() <= 400);
        records += ids_in(m).size();
    }
    CHECK(sink.sent.size() == 5);
    CHECK(records == 5);
}

TEST_CASE("failed trace sends are counted, never thrown", "[trace]") {
    Sink sink;
    sink.fail = true;
    auto clock = std::make_shared<rmq::ManualClock>();
    Dispatcher d(DispatcherOptions{.trace_topic = "TT", .batch_num = 1}, sink.sender(), clock);
    d.start();
    d.append(pub("A", 1));
    d.append(pub("B", 2));
    d.shutdown();
    CHECK(d.stats().messages_failed == 2);
    CHECK(d.stats().messages_sent == 0);
}

}  // namespace trace_dispatcher_test
