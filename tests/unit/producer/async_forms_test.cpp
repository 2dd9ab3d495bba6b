// rmq::Producer's asynchronous forms over a transport with its own asynchronous send (rmq::HasAsyncSend,
// rmq::HasAsyncSendBatch) whose answers come when the test gives them: send_async(msg, queue),
// send_async(msg, selector, arg) and send_async(batch) leave no producer thread waiting for the broker (more
// sends in flight than producer threads), and their results, failures and retries are those of the
// producer-thread forms.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "producer_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace async_forms_test {

namespace {

using producer_test::TwoBrokers;

/// TwoBrokers whose asynchronous sends are held until answer_all(); synchronous sends are counted.
class Deferred : public TwoBrokers {
public:
    struct Held {
        std::mutex mutex;
        std::condition_variable cv;
        std::vector<std::function<void()>> answers;
        int sync_sends = 0;
    };

    Deferred(rmq::InProcessTransport inner, std::shared_ptr<Shared> shared, std::shared_ptr<Held> held)
        : TwoBrokers(std::move(inner), std::move(shared))
        , held_(std::move(held)) {}

    rmq::SendResult send(const rmq::Message& msg, const rmq::MessageQueue& mq) {
        count_sync();
        return TwoBrokers::send(msg, mq);
    }

    rmq::SendResult send_batch(std::span<const rmq::Message> msgs, const rmq::MessageQueue& mq) {
        count_sync();
        return TwoBrokers::send_batch(msgs, mq);
    }

    void send_async(const rmq::Message& msg, const rmq::MessageQueue& mq, rmq::SendCompletion done) {
        hold([inner = static_cast<TwoBrokers>(*this), msg, mq]() mutable { return inner.send(msg, mq); },
             std::move(done));
    }

    void send_batch_async(std::span<const rmq::Message> msgs,
                          const rmq::MessageQueue& mq,
                          rmq::SendCompletion done) {
        hold([inner = static_cast<TwoBrokers>(*this),
              batch = std::vector<rmq::Message>(msgs.begin(), msgs.end()),
              mq]() mutable { return inner.send_batch(batch, mq); },
             std::move(done));
    }

private:
    void count_sync() {
        const std::lock_guard lock(held_->mutex);
        ++held_->sync_sends;
    }

    template <class Send>
    void hold(Send send, rmq::SendCompletion done) {
        const std::lock_guard lock(held_->mutex);
        held_->answers.emplace_back([send = std::move(send), done = std::move(done)]() mutable {
            rmq::SendResult r;
            std::exception_ptr error;
            try {
                r = send();
            } catch (...) {
                error = std::current_exception();
            }
            done(std::move(r), error);
        });
        held_->cv.notify_all();
    }

    std::shared_ptr<Held> held_;
};

static_assert(rmq::HasAsyncSend<Deferred>);
static_assert(rmq::HasAsyncSendBatch<Deferred>);

/// A producer (one producer thread) over Deferred, with topic "T" on two brokers of two queues each.
struct Env {
    rmq::InProcessBroker broker;
    std::shared_ptr<TwoBrokers::Shared> shared = std::make_shared<TwoBrokers::Shared>();
    std::shared_ptr<Deferred::Held> held = std::make_shared<Deferred::Held>();
    rmq::Producer<Deferred> producer;

    explicit Env(int async_retries = 2)
        : producer(make_transport(),
                   rmq::ProducerConfig{.producer_group = "PG",
                                       .retry_times_when_send_async_failed = async_retries,
                                       .back_pressure_for_async_send_num = 64,
                                       .async_sender_threads = 1}) {
        producer.start();
    }

    Deferred make_transport() {
        broker.create_topic("T", 4);
        return Deferred(broker.connect(), shared, held);
    }

    /// Waits until `n` sends wait for their answer.
    [[nodiscard]] bool held_sends(std::size_t n) {
        std::unique_lock lock(held->mutex);
        return held->cv.wait_for(lock, std::chrono::seconds(10), [&] { return held->answers.size() >= n; });
    }

    /// The broker answers every send waiting for it, from the test's thread.
    void answer_all() {
        std::vector<std::function<void()>> answers;
        {
            const std::lock_guard lock(held->mutex);
            answers.swap(held->answers);
        }
        for (auto& a : answers) {
            a();
        }
    }

    /// Answers sends (retries included) until `f` is ready.
    template <class T>
    [[nodiscard]] bool answer_until(std::future<T>& f) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (f.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready) {
            if (std::chrono::steady_clock::now() > deadline) {
                return false;
            }
            answer_all();
        }
        return true;
    }

    int sync_sends() {
        const std::lock_guard lock(held->mutex);
        return held->sync_sends;
    }

    std::vector<rmq::MessageQueue> attempts() {
        const std::lock_guard lock(shared->mutex);
        return shared->attempts;
    }
};

constexpr std::size_t in_flight = 8;  // with one producer thread

}  // namespace

TEST_CASE("producer async forms: send_async(msg, queue) holds no producer thread while the broker has not "
          "answered") {
    Env e;
    const rmq::MessageQueue mq{"T", "broker-b", 1};
    std::vector<std::future<rmq::SendResult>> futures;
    for (std::size_t i = 0; i + 2 < in_flight; ++i) {
        futures.push_back(e.producer.send_async(rmq::Message("T", "f" + std::to_string(i)), mq));
    }
    std::vector<std::promise<rmq::SendResult>> promises(2);
    for (auto& p : promises) {
        e.producer.send_async(
            rmq::Message("T", "callback"),
            mq,
            [&p](rmq::SendResult r) { p.set_value(std::move(r)); },
            [&p](std::exception_ptr err) { p.set_exception(std::move(err)); });
        futures.push_back(p.get_future());
    }
    REQUIRE(e.held_sends(in_flight));
    CHECK(e.sync_sends() == 0);
    CHECK(e.producer.async_in_flight() == in_flight);
    e.answer_all();
    for (auto& f : futures) {
        REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
        const auto r = f.get();
        CHECK(r.status == rmq::SendStatus::SendOk);
        CHECK(r.message_queue == mq);
    }
    CHECK(e.producer.async_in_flight() == 0);
    CHECK(e.broker.max_offset(e.broker.queue("T", 3)) == static_cast<std::int64_t>(in_flight));
    CHECK(e.producer.stats().topics.at(0).send_ok_total == static_cast<std::int64_t>(in_flight));
}

TEST_CASE(
    "producer async forms: send_async(msg, queue) is one attempt, and a queue of another topic fails it") {
    Env e;
    e.shared->failing = "broker-a";
    e.shared->failures_left = 5;
    auto refused = e.producer.send_async(rmq::Message("T", "refused"), rmq::MessageQueue{"T", "broker-a", 0});
    REQUIRE(e.answer_until(refused));
    CHECK_THROWS_AS(refused.get(), rmq::BrokerError);
    CHECK(e.attempts().size() == 1);  // no retry, as in Java
    auto other = e.producer.send_async(rmq::Message("T", "other"), rmq::MessageQueue{"U", "broker-b", 0});
    REQUIRE(other.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
    CHECK_THROWS_AS(other.get(), rmq::InvalidArgument);
    CHECK(e.attempts().size() == 1);
    CHECK(e.producer.stats().topics.at(0).send_failed_total == 2);
}

TEST_CASE("producer async forms: send_async(msg, selector, arg) runs the selector on a producer thread and "
          "holds none while the broker has not answered") {
    Env e;
    std::mutex m;
    std::vector<std::thread::id> selector_threads;
    const auto by_id = [&](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, std::size_t id) {
        const std::lock_guard lock(m);
        selector_threads.push_back(std::this_thread::get_id());
        return mqs[id % mqs.size()];
    };
    std::vector<std::future<rmq::SendResult>> futures;
    for (std::size_t i = 0; i < in_flight; ++i) {
        futures.push_back(e.producer.send_async(rmq::Message("T", "s" + std::to_string(i)), by_id, i));
    }
    REQUIRE(e.held_sends(in_flight));
    CHECK(e.sync_sends() == 0);
    e.answer_all();
    for (std::size_t i = 0; i < in_flight; ++i) {
        REQUIRE(futures[i].wait_for(std::chrono::seconds(30)) == std::future_status::ready);
        const auto r = futures[i].get();
        CHECK(r.status == rmq::SendStatus::SendOk);
        CHECK(r.message_queue.broker_name == (i % 4 < 2 ? "broker-a" : "broker-b"));
        CHECK(r.message_queue.queue_id == static_cast<int>(i % 2));
    }
    const std::lock_guard lock(m);
    REQUIRE(selector_threads.size() == in_flight);
    for (const auto& t : selector_threads) {
        CHECK(t != std::this_thread::get_id());
    }
}

TEST_CASE("producer async forms: send_async(msg, selector, arg) is one attempt, and what the selector throws "
          "fails it") {
    Env e;
    e.shared->failing = "*";
    e.shared->failures_left = 5;
    const auto first = [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int) {
        return mqs[0];
    };
    auto refused = e.producer.send_async(rmq::Message("T", "refused"), first, 0);
    REQUIRE(e.answer_until(refused));
    CHECK_THROWS_AS(refused.get(), rmq::BrokerError);
    CHECK(e.attempts().size() == 1);
    const auto throwing =
        [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int) -> rmq::MessageQueue {
        throw rmq::InvalidArgument(mqs.empty() ? "no queue" : "no queue for you");
    };
    auto thrown = e.producer.send_async(rmq::Message("T", "thrown"), throwing, 0);
    REQUIRE(thrown.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
    CHECK_THROWS_AS(thrown.get(), rmq::InvalidArgument);
    CHECK(e.attempts().size() == 1);
    CHECK(e.producer.async_in_flight() == 0);
}

namespace {

std::vector<rmq::Message> batch_of(int n, const std::string& tag) {
    std::vector<rmq::Message> batch;
    for (int i = 0; i < n; ++i) {
        batch.emplace_back("T", tag + std::to_string(i));
    }
    return batch;
}

}  // namespace

TEST_CASE(
    "producer async forms: send_async(batch) holds no producer thread while the broker has not answered") {
    Env e;
    std::vector<std::future<rmq::SendResult>> futures;
    for (std::size_t i = 0; i < in_flight; ++i) {
        futures.push_back(e.producer.send_async(batch_of(3, "b" + std::to_string(i) + "-")));
    }
    REQUIRE(e.held_sends(in_flight));
    CHECK(e.sync_sends() == 0);
    e.answer_all();
    std::int64_t stored = 0;
    for (auto& f : futures) {
        REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
        const auto r = f.get();
        CHECK(r.status == rmq::SendStatus::SendOk);
        CHECK(std::count(r.msg_id.begin(), r.msg_id.end(), ',') == 2);
    }
    for (int q = 0; q < 4; ++q) {
        stored += e.broker.max_offset(e.broker.queue("T", q));
    }
    CHECK(stored == static_cast<std::int64_t>(3 * in_flight));
    CHECK(e.producer.stats().topics.at(0).send_ok_total == static_cast<std::int64_t>(in_flight));
}

TEST_CASE("producer async forms: send_async(batch) retries on the other broker, up to "
          "retry_times_when_send_async_failed") {
    SECTION("one failure is retried on the other broker") {
        Env e;
        e.shared->failing = "*";
        e.shared->failures_left = 1;
        auto f = e.producer.send_async(batch_of(2, "r"));
        REQUIRE(e.answer_until(f));
        CHECK(f.get().status == rmq::SendStatus::SendOk);
        const auto attempts = e.attempts();
        REQUIRE(attempts.size() == 2);
        CHECK(attempts[0].broker_name != attempts[1].broker_name);
    }
    SECTION("no retry when retry_times_when_send_async_failed is 0") {
        Env e(0);
        e.shared->failing = "*";
        e.shared->failures_left = 1;
        auto f = e.producer.send_async(batch_of(2, "r"));
        REQUIRE(e.answer_until(f));
        CHECK_THROWS_AS(f.get(), rmq::BrokerError);
        CHECK(e.attempts().size() == 1);
    }
}

}  // namespace async_forms_test
