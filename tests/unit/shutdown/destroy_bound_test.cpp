// await_termination_millis_when_destroyed: a consumer whose listener is stuck is destroyed within that bound
// (the default, -1, waits for the listener: shutdown_bound_test.cpp), and the consumer's internals, listener
// included, are still freed once the listener returns.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <span>

#include <consumer_fixture.hpp>

#include <catch2/catch.hpp>

#include <rmq/consumer.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

template <class Order>
using TestConsumer =
    rmq::Consumer<Order, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

// A gate the listener blocks on until the test opens it, for at most 10 s: a destructor that waits for the
// listener then makes the test fail after 10 s instead of hanging.
struct Gate {
    std::mutex mutex;
    std::condition_variable cv;
    bool open = false;
    std::atomic<int> entered{0};
    std::atomic<int> returned{0};

    void pass() {
        entered.fetch_add(1);
        std::unique_lock lock(mutex);
        cv.wait_for(lock, std::chrono::seconds(10), [this] { return open; });
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

// Room for a loaded machine to run the destructor's thread hand-over; far below the listener's 10 s.
constexpr std::int64_t margin_millis = 1500;

template <class Order, class Status, class Context>
void check_bounded_destruction(std::int64_t destroy_millis, Status success) {
    rmq::InProcessBroker broker;
    broker.create_topic("DestroyTopic", 1);
    (void)broker.connect().send(rmq::Message("DestroyTopic", "TagA", "stuck"),
                                broker.queue("DestroyTopic", 0));
    // Shared with the listener, which outlives the consumer's destructor: the test's weak_ptr expires when
    // the consumer's internals (the listener with them) were freed.
    auto gate = std::make_shared<Gate>();
    const std::weak_ptr<Gate> listener_alive = gate;
    auto config = consumer_fixture::fast_config("destroy_group", 0);
    config.await_termination_millis_when_destroyed = destroy_millis;
    auto consumer = std::make_unique<TestConsumer<Order>>(broker.connect(), config);
    consumer->subscribe("DestroyTopic", "*");
    consumer->register_listener([gate, success](std::span<const rmq::MessageExt>, Context&) {
        gate->pass();
        return success;
    });
    consumer->start();
    REQUIRE(
        consumer_fixture::eventually([&] { return gate->entered.load() == 1; }, std::chrono::seconds(60)));

    // Destroyed while running: shutdown (0 ms wait) and the bounded wait for the stuck listener.
    auto destroyed = std::async(std::launch::async, [&] { consumer.reset(); });
    INFO("await_termination_millis_when_destroyed " << destroy_millis);
    CHECK(destroyed.wait_for(std::chrono::milliseconds(destroy_millis + margin_millis)) ==
          std::future_status::ready);
    CHECK(gate->returned.load() == 0);  // still stuck: the destructor did not wait for it

    gate->release();
    destroyed.get();
    gate.reset();
    // Once the listener returned, the consumer's internals are freed: nothing leaks.
    CHECK(consumer_fixture::eventually([&] { return listener_alive.expired(); }, std::chrono::seconds(30)));
    // The listener's result was discarded: the message was not committed.
    CHECK(broker.consumer_offset("destroy_group", broker.queue("DestroyTopic", 0)).value_or(0) == 0);
}

}  // namespace

TEST_CASE("a consumer whose Concurrently listener is stuck is destroyed within "
          "await_termination_millis_when_destroyed",
          "[shutdown][concurrently]") {
    const std::int64_t destroy_millis = GENERATE(0, 500);
    check_bounded_destruction<rmq::Concurrently,
                              rmq::ConsumeConcurrentlyStatus,
                              rmq::ConsumeConcurrentlyContext>(
        destroy_millis, rmq::ConsumeConcurrentlyStatus::ConsumeSuccess);
}

TEST_CASE("a consumer whose Orderly listener is stuck is destroyed within "
          "await_termination_millis_when_destroyed",
          "[shutdown][orderly]") {
    const std::int64_t destroy_millis = GENERATE(0, 500);
    check_bounded_destruction<rmq::Orderly, rmq::ConsumeOrderlyStatus, rmq::ConsumeOrderlyContext>(
        destroy_millis, rmq::ConsumeOrderlyStatus::Success);
}
