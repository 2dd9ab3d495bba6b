// shutdown() keeps its bound (await_termination_millis_when_shutdown plus a margin) whatever listeners do;
// the destructor is where rmq waits for listeners still running, so nothing they use is freed under them.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#include <consumer_fixture.hpp>

#include <catch2/catch.hpp>

#include <rmq/consumer.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/transport/in_process.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace shutdown_bound_test {

namespace {

template <class Order>
using TestConsumer =
    rmq::Consumer<Order, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

// A gate the listener blocks on until the test opens it.
struct Gate {
    std::mutex mutex;
    std::condition_variable cv;
    bool open = false;
    std::atomic<int> entered{0};
    std::atomic<int> returned{0};

    void pass() {
        entered.fetch_add(1);
        std::unique_lock lock(mutex);
        cv.wait(lock, [this] { return open; });
        lock.unlock();
        returned.fetch_add(1);
    }

    void release() {
        {
            const std::lock_guard lock(mutex);
            open = true;
        }
        cv.notify_all();
    }
};

constexpr std::int64_t margin_millis = 1500;

std::int64_t millis_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t)
        .count();
}

template <class Order, class Status, class Context>
void check_bounded_shutdown(std::int64_t await_millis, Status success) {
    rmq::InProcessBroker broker;
    broker.create_topic("ShutTopic", 1);
    (void)broker.connect().send(rmq::Message("ShutTopic", "TagA", "stuck"), broker.queue("ShutTopic", 0));
    Gate gate;
    auto consumer = std::make_unique<TestConsumer<Order>>(
        broker.connect(), consumer_fixture::fast_config("shut_group", await_millis));
    consumer->subscribe("ShutTopic", "*");
    consumer->register_listener([&gate, success](std::span<const rmq::MessageExt>, Context&) {
        gate.pass();
        return success;
    });
    consumer->start();
    REQUIRE(consumer_fixture::eventually([&] { return gate.entered.load() == 1; }, std::chrono::seconds(60)));

    // On another thread, so that a shutdown without its bound fails this test instead of hanging it.
    const auto begin = std::chrono::steady_clock::now();
    auto shut = std::async(std::launch::async, [&] { consumer->shutdown(); });
    const bool bounded =
        shut.wait_for(std::chrono::milliseconds(await_millis + margin_millis)) == std::future_status::ready;
    const auto took = millis_since(begin);
    INFO("shutdown took " << took << " ms with await_termination_millis_when_shutdown " << await_millis);
    if (!bounded) {
        gate.release();  // lets the listener and then shutdown() return, so the failure is reported
    }
    shut.get();
    REQUIRE(bounded);
    CHECK(took < await_millis + margin_millis);
    CHECK(took >= await_millis);  // it did wait for the listener, up to the bound
    CHECK(gate.returned.load() == 0);

    // The destructor waits for the listener: not done while it is blocked, done once it returned.
    std::atomic<int> returned_when_destroyed{-1};
    auto destroyed = std::async(std::launch::async, [&] {
        consumer.reset();
        returned_when_destroyed.store(gate.returned.load());
    });
    CHECK(destroyed.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
    gate.release();
    REQUIRE(destroyed.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
    destroyed.get();
    CHECK(returned_when_destroyed.load() == 1);
    // The listener's result was discarded: the message was not committed.
    CHECK(broker.consumer_offset("shut_group", broker.queue("ShutTopic", 0)).value_or(0) == 0);
}

}  // namespace

TEST_CASE("shutdown returns within await_termination_millis_when_shutdown while a listener is stuck "
          "(Concurrently), the destructor waits for it",
          "[shutdown][concurrently]") {
    const std::int64_t await_millis = GENERATE(0, 2000);
    check_bounded_shutdown<rmq::Concurrently,
                           rmq::ConsumeConcurrentlyStatus,
                           rmq::ConsumeConcurrentlyContext>(await_millis,
                                                            rmq::ConsumeConcurrentlyStatus::ConsumeSuccess);
}

TEST_CASE(
    "shutdown returns within await_termination_millis_when_shutdown while a listener is stuck (Orderly), "
    "the destructor waits for it",
    "[shutdown][orderly]") {
    const std::int64_t await_millis = GENERATE(0, 2000);
    check_bounded_shutdown<rmq::Orderly, rmq::ConsumeOrderlyStatus, rmq::ConsumeOrderlyContext>(
        await_millis, rmq::ConsumeOrderlyStatus::Success);
}

TEST_CASE("a listener released during the wait finishes, is committed, and shutdown returns without the rest "
          "of the wait",
          "[shutdown][concurrently]") {
    rmq::InProcessBroker broker;
    broker.create_topic("ShutTopic", 1);
    (void)broker.connect().send(rmq::Message("ShutTopic", "TagA", "slow"), broker.queue("ShutTopic", 0));
    Gate gate;
    constexpr std::int64_t await_millis = 30000;
    TestConsumer<rmq::Concurrently> consumer(broker.connect(),
                                             consumer_fixture::fast_config("drain_group", await_millis));
    consumer.subscribe("ShutTopic", "*");
    consumer.register_listener([&gate](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        gate.pass();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(consumer_fixture::eventually([&] { return gate.entered.load() == 1; }, std::chrono::seconds(60)));
    auto releaser = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        gate.release();
    });
    const auto begin = std::chrono::steady_clock::now();
    consumer.shutdown();
    const auto took = millis_since(begin);
    releaser.get();
    INFO("shutdown took " << took << " ms");
    CHECK(gate.returned.load() == 1);
    CHECK(took < await_millis);
    CHECK(broker.consumer_offset("drain_group", broker.queue("ShutTopic", 0)) ==
          std::optional<std::int64_t>(1));
}

}  // namespace shutdown_bound_test
