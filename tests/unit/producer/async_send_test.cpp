// rmq::Producer's asynchronous and oneway sends over the embedded broker.

#include <chrono>
#include <condition_variable>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "producer_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

/// Collects one asynchronous outcome; wait() blocks (generously) until it arrived.
class Outcome {
public:
    void success(rmq::SendResult r) {
        const std::lock_guard lock(mutex_);
        result_ = std::move(r);
        thread_ = std::this_thread::get_id();
        done_ = true;
        cv_.notify_all();
    }

    void failure(std::exception_ptr e) {
        const std::lock_guard lock(mutex_);
        error_ = std::move(e);
        thread_ = std::this_thread::get_id();
        done_ = true;
        cv_.notify_all();
    }

    void wait() {
        std::unique_lock lock(mutex_);
        REQUIRE(cv_.wait_for(lock, std::chrono::seconds(30), [this] { return done_; }));
    }

    std::optional<rmq::SendResult> result_;
    std::exception_ptr error_;
    std::thread::id thread_;

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
};

/// InProcessTransport whose sends wait until the gate opens.
class Gated : public rmq::InProcessTransport {
public:
    struct Gate {
        std::mutex mutex;
        std::condition_variable cv;
        bool open = false;
        int waiting = 0;
    };

    Gated(rmq::InProcessTransport inner, std::shared_ptr<Gate> gate)
        : rmq::InProcessTransport(std::move(inner))
        , gate_(std::move(gate)) {}

    rmq::SendResult send(const rmq::Message& msg, const rmq::MessageQueue& mq) {
        {
            std::unique_lock lock(gate_->mutex);
            ++gate_->waiting;
            gate_->cv.notify_all();
            gate_->cv.wait(lock, [this] { return gate_->open; });
        }
        return rmq::InProcessTransport::send(msg, mq);
    }

private:
    std::shared_ptr<Gate> gate_;
};

std::int64_t total(rmq::InProcessBroker& broker, const std::string& topic, int queues) {
    std::int64_t n = 0;
    for (int q = 0; q < queues; ++q) {
        n += broker.max_offset(broker.queue(topic, q));
    }
    return n;
}

}  // namespace

TEST_CASE("producer async: the future holds the result and the message is stored") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    p.start();
    auto f = p.send_async(rmq::Message("T", "TagA", "", "async"));
    const auto r = f.get();
    CHECK(r.status == rmq::SendStatus::SendOk);
    const auto stored = broker.messages("T", r.message_queue.queue_id);
    REQUIRE(stored.size() == 1);
    CHECK(stored[0].body() == "async");
    CHECK(stored[0].msg_id() == r.msg_id);

    auto to_queue = p.send_async(rmq::Message("T", "q3"), broker.queue("T", 3)).get();
    CHECK(to_queue.message_queue.queue_id == 3);
    REQUIRE(p.stats().topics.size() == 1);
    CHECK(p.stats().topics[0].send_ok_total == 2);
}

TEST_CASE("producer async: callbacks run on a producer thread, never the caller's") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    p.start();
    Outcome ok;
    p.send_async(
        rmq::Message("T", "x"),
        [&](rmq::SendResult r) { ok.success(std::move(r)); },
        [&](std::exception_ptr e) { ok.failure(std::move(e)); });
    ok.wait();
    REQUIRE(ok.result_.has_value());
    CHECK(ok.thread_ != std::this_thread::get_id());

    Outcome bad;  // a queue the broker does not have: the exception callback
    p.send_async(
        rmq::Message("T", "x"),
        broker.queue("T", 9),
        [&](rmq::SendResult r) { bad.success(std::move(r)); },
        [&](std::exception_ptr e) { bad.failure(std::move(e)); });
    bad.wait();
    REQUIRE(bad.error_);
    CHECK_THROWS_AS(std::rethrow_exception(bad.error_), rmq::BrokerError);
    CHECK(bad.thread_ != std::this_thread::get_id());
}

TEST_CASE("producer async: a bad message throws on the caller's thread before anything is sent") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    CHECK_THROWS_AS(p.send_async(rmq::Message("T", "x")), rmq::IllegalState);
    p.start();
    CHECK_THROWS_AS(p.send_async(rmq::Message("T", "")), rmq::InvalidArgument);
    CHECK_THROWS_AS(p.send_async(rmq::Message("T", std::string(4 * 1024 * 1024 + 1, 'x'))),
                    rmq::MessageTooLarge);
    CHECK_THROWS_AS(p.send_oneway(rmq::Message("T", "x"), broker.queue("Other", 0)), rmq::InvalidArgument);
    p.shutdown();
    CHECK(total(broker, "T", 4) == 0);
    CHECK_THROWS_AS(p.send_async(rmq::Message("T", "x")), rmq::IllegalState);
}

TEST_CASE("producer async: retries go to another broker, up to retry_times_when_send_async_failed") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    auto shared = std::make_shared<producer_test::TwoBrokers::Shared>();
    SECTION("one failure is retried on the other broker") {
        rmq::Producer<producer_test::TwoBrokers> p(producer_test::TwoBrokers(broker.connect(), shared),
                                                   rmq::ProducerConfig{.producer_group = "PG"});
        p.start();
        {
            const std::lock_guard lock(shared->mutex);
            shared->failing = "*";
            shared->failures_left = 1;
        }
        const auto r = p.send_async(rmq::Message("T", "x")).get();
        const std::lock_guard lock(shared->mutex);
        REQUIRE(shared->attempts.size() == 2);
        CHECK(shared->attempts[1].broker_name != shared->attempts[0].broker_name);
        CHECK(r.message_queue == shared->attempts[1]);
    }
    SECTION("the async retry count is its own setting") {
        rmq::Producer<producer_test::TwoBrokers> p(
            producer_test::TwoBrokers(broker.connect(), shared),
            rmq::ProducerConfig{.producer_group = "PG",
                                .retry_times_when_send_failed = 0,
                                .retry_times_when_send_async_failed = 3});
        p.start();
        {
            const std::lock_guard lock(shared->mutex);
            shared->failing = "*";
            shared->failures_left = 1000;
        }
        auto f = p.send_async(rmq::Message("T", "x"));
        CHECK_THROWS_AS(f.get(), rmq::BrokerError);
        const std::lock_guard lock(shared->mutex);
        CHECK(shared->attempts.size() == 4);
    }
}

TEST_CASE("producer async: back-pressure bounds the sends in flight") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    auto gate = std::make_shared<Gated::Gate>();
    rmq::Producer<Gated> p(Gated(broker.connect(), gate),
                           rmq::ProducerConfig{.producer_group = "PG",
                                               .send_msg_timeout = 200,
                                               .back_pressure_for_async_send_num = 1,
                                               .async_sender_threads = 2});
    p.start();
    auto first = p.send_async(rmq::Message("T", "first"));
    {
        std::unique_lock lock(gate->mutex);
        REQUIRE(gate->cv.wait_for(lock, std::chrono::seconds(30), [&] { return gate->waiting == 1; }));
    }
    CHECK(p.async_in_flight() == 1);
    // The only slot is taken: the next send waits send_msg_timeout for it, then gives up.
    CHECK_THROWS_AS(p.send_async(rmq::Message("T", "second")), rmq::TooManyRequests);
    {
        const std::lock_guard lock(gate->mutex);
        gate->open = true;
    }
    gate->cv.notify_all();
    CHECK(first.get().status == rmq::SendStatus::SendOk);
    CHECK(p.send_async(rmq::Message("T", "third")).get().status == rmq::SendStatus::SendOk);
    CHECK(total(broker, "T", 4) == 2);
}

TEST_CASE("producer async: a callback may send again with a single in-flight slot") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(),
                                             rmq::ProducerConfig{.producer_group = "PG",
                                                                 .back_pressure_for_async_send_num = 1,
                                                                 .async_sender_threads = 1});
    p.start();
    std::promise<rmq::SendResult> second;
    p.send_async(
        rmq::Message("T", "first"),
        [&](const rmq::SendResult&) {
            // The slot was given back before this callback: the send is accepted at once.
            p.send_async(
                rmq::Message("T", "second"),
                [&](rmq::SendResult r) { second.set_value(std::move(r)); },
                [&](std::exception_ptr e) { second.set_exception(std::move(e)); });
        },
        [&](std::exception_ptr e) { second.set_exception(std::move(e)); });
    auto f = second.get_future();
    REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
    CHECK(f.get().status == rmq::SendStatus::SendOk);
    CHECK(total(broker, "T", 4) == 2);
}

TEST_CASE("producer async: shutdown finishes the accepted sends and runs their callbacks") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    p.start();
    std::vector<std::future<rmq::SendResult>> futures;
    for (int i = 0; i < 100; ++i) {
        futures.push_back(p.send_async(rmq::Message("T", std::to_string(i))));
    }
    p.shutdown();
    for (auto& f : futures) {
        REQUIRE(f.wait_for(std::chrono::seconds(0)) == std::future_status::ready);
        CHECK(f.get().status == rmq::SendStatus::SendOk);
    }
    CHECK(total(broker, "T", 4) == 100);
}

TEST_CASE("producer oneway: the message is sent without waiting for the broker's answer") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    p.start();
    p.send_oneway(rmq::Message("T", "TagA", "", "one"));
    p.send_oneway(rmq::Message("T", "two"), broker.queue("T", 2));
    p.send_oneway(rmq::Message("T", "refused"), broker.queue("T", 7));  // no such queue: logged, not thrown
    p.shutdown();                                                       // finishes them
    CHECK(total(broker, "T", 4) == 2);
    const auto q2 = broker.messages("T", 2);
    REQUIRE_FALSE(q2.empty());
    CHECK(q2.back().body() == "two");
}

TEST_CASE("producer oneway: with the route cached it is written from the caller's thread, the producer's one "
          "thread busy") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    rmq::ProducerConfig config{.producer_group = "PG"};
    config.async_sender_threads = 1;
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(), config);
    p.start();
    (void)p.send(rmq::Message("T", "route"));  // the route cached
    std::promise<void> busy;
    std::promise<void> release;
    auto released = release.get_future().share();
    // The producer's only thread runs this callback until released.
    p.send_async(
        rmq::Message("T", "busy"),
        [&busy, released](const rmq::SendResult&) {
            busy.set_value();
            released.wait();
        },
        [&busy, released](const std::exception_ptr&) {
            busy.set_value();
            released.wait();
        });
    REQUIRE(busy.get_future().wait_for(std::chrono::seconds(30)) == std::future_status::ready);
    p.send_oneway(rmq::Message("T", "one"));
    p.send_oneway(rmq::Message("T", "two"), broker.queue("T", 2));
    p.send_oneway(
        rmq::Message("T", "three"),
        [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int i) {
            return mqs[static_cast<std::size_t>(i)];
        },
        3);
    CHECK(total(broker, "T", 4) == 5);  // all three stored while the producer thread is still busy
    release.set_value();
    p.shutdown();
}

TEST_CASE("producer async: a selector picks the queue of async and oneway sends") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 4);
    rmq::Producer<rmq::InProcessTransport> p(broker.connect(), rmq::ProducerConfig{.producer_group = "PG"});
    p.start();
    const auto by_id = [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int id) {
        return mqs[static_cast<std::size_t>(id) % mqs.size()];
    };
    CHECK(p.send_async(rmq::Message("T", "a"), by_id, 6).get().message_queue.queue_id == 2);
    std::string key = "abc";  // an lvalue argument is copied into the task
    CHECK(p.send_async(
               rmq::Message("T", "b"),
               [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, const std::string& k) {
                   return mqs[k.size() % mqs.size()];
               },
               key)
              .get()
              .message_queue.queue_id == 3);
    p.send_oneway(rmq::Message("T", "c"), by_id, 1);
    p.shutdown();
    CHECK(broker.max_offset(broker.queue("T", 1)) == 1);
    CHECK(broker.max_offset(broker.queue("T", 2)) == 1);
    CHECK(broker.max_offset(broker.queue("T", 3)) == 1);
}
