// Producer::send_async over RemotingTransport's own asynchronous send (rmq::HasAsyncSend), against a fake
// broker: many sends on the wire with two producer threads, retries from the answer (onExceptionImpl), a
// refusal that is not retried, and shutdown waiting for the sends still on the wire.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/producer.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/trace.hpp>
#include <rmq/transport/remoting.hpp>

namespace async_send_test {

namespace {

using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;

static_assert(rmq::HasAsyncSend<rmq::RemotingTransport>);
static_assert(rmq::HasAsyncSendBatch<rmq::RemotingTransport>);

/// A fake NameServer and broker in one: routes to itself; what a send gets is up to `on_send`.
template <class OnSend>
void serve(rmq_test::FakeServer& server, OnSend on_send) {
    server.set_handler([&server, on_send](rmq_test::FakeSession& s, const Command& req) mutable {
        auto r = rmq_test::FakeSession::response_to(req, 0);
        r.version = 413;
        if (req.code == rc::send_message_v2 || req.code == rc::send_batch_message) {
            on_send(s, req);
            return;
        }
        if (req.code == rc::get_routeinfo_by_topic) {
            r.body = rmq_test::route_json(server.address());
        }
        if (!req.is_oneway()) {
            s.send(r);
        }
    });
}

Command stored(const Command& req, int code = 0) {
    auto r = rmq_test::FakeSession::response_to(req, code);
    r.fields().set("msgId", "7F00000100002A9F0000000000000010");
    r.fields().set("queueId", std::string(req.field("e").value_or("0")));
    r.fields().set("queueOffset", "7");
    if (code != 0) {
        r.remark = "refused by the test";
    }
    return r;
}

rmq::Producer<rmq::RemotingTransport> producer_for(const rmq_test::FakeServer& server,
                                                   std::int64_t timeout = 10000) {
    rmq::RemotingConfig c;
    c.namesrv_addr = server.address();
    c.send_msg_timeout = timeout;
    rmq::ProducerConfig pc{.producer_group = "pg_async"};
    pc.async_sender_threads = 2;
    return rmq::Producer<rmq::RemotingTransport>(rmq::RemotingTransport{c}, pc);
}

std::size_t sends_received(rmq_test::FakeServer& server) {
    std::size_t n = 0;
    for (const auto& c : server.received()) {
        n += c.code == rc::send_message_v2 ? 1 : 0;
    }
    return n;
}

}  // namespace

TEST_CASE("send_async puts many sends on the wire with two producer threads",
          "[remoting_transport][async_send]") {
    constexpr std::size_t n = 40;
    rmq_test::FakeServer server;
    std::mutex m;
    std::vector<std::pair<std::shared_ptr<rmq_test::FakeSession>, Command>> held;
    // Answers nothing until all n sends arrived: with one send per thread on the wire they never would.
    serve(server, [&](rmq_test::FakeSession& s, const Command& req) {
        const std::lock_guard lock(m);
        held.emplace_back(s.shared_from_this(), stored(req));
        if (held.size() == n) {
            for (auto& [session, answer] : held) {
                session->send(answer);
            }
        }
    });
    auto producer = producer_for(server);
    producer.start();
    std::vector<std::future<rmq::SendResult>> results;
    for (std::size_t i = 0; i < n; ++i) {
        results.push_back(
            producer.send_async(rmq::Message("TopicAsync", "TagA", "body " + std::to_string(i))));
    }
    for (auto& f : results) {
        REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
        const auto r = f.get();
        CHECK(r.status == rmq::SendStatus::SendOk);
        CHECK(r.queue_offset == 7);
    }
    CHECK(sends_received(server) == n);
    CHECK(producer.stats().topics.at(0).send_ok_total == static_cast<std::int64_t>(n));
    producer.shutdown();
}

TEST_CASE("send_async to a queue, by a selector and of a batch puts many sends on the wire with two producer "
          "threads",
          "[remoting_transport][async_send]") {
    constexpr std::size_t n = 30;  // of each form
    rmq_test::FakeServer server;
    std::mutex m;
    std::vector<std::pair<std::shared_ptr<rmq_test::FakeSession>, Command>> held;
    std::size_t batches = 0;
    // Answers nothing until all 3n sends arrived: with one send per thread on the wire they never would.
    serve(server, [&](rmq_test::FakeSession& s, const Command& req) {
        const std::lock_guard lock(m);
        batches += req.code == rc::send_batch_message ? 1 : 0;
        held.emplace_back(s.shared_from_this(), stored(req));
        if (held.size() == 3 * n) {
            for (auto& [session, answer] : held) {
                session->send(answer);
            }
        }
    });
    auto producer = producer_for(server);
    producer.start();
    const rmq::MessageQueue mq{"TopicAsync", "broker-a", 2};
    const auto last = [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int) {
        return mqs.back();
    };
    std::vector<std::future<rmq::SendResult>> results;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string body = "body " + std::to_string(i);
        results.push_back(producer.send_async(rmq::Message("TopicAsync", "TagA", body), mq));
        results.push_back(producer.send_async(rmq::Message("TopicAsync", "TagA", body), last, 0));
        const std::vector<rmq::Message> batch{rmq::Message("TopicAsync", body),
                                              rmq::Message("TopicAsync", body)};
        results.push_back(producer.send_async(std::span<const rmq::Message>(batch)));
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
        REQUIRE(results[i].wait_for(std::chrono::seconds(20)) == std::future_status::ready);
        const auto r = results[i].get();
        CHECK(r.status == rmq::SendStatus::SendOk);
        CHECK(r.queue_offset == 7);
        if (i % 3 < 2) {
            CHECK(r.message_queue.queue_id == (i % 3 == 0 ? 2 : 3));
        } else {
            CHECK(std::count(r.msg_id.begin(), r.msg_id.end(), ',') == 1);
        }
    }
    const std::lock_guard lock(m);
    CHECK(batches == n);
    CHECK(producer.stats().topics.at(0).send_ok_total == static_cast<std::int64_t>(3 * n));
    producer.shutdown();
}

TEST_CASE("send_async retries a retryable refusal from its answer and stops at one that is not",
          "[remoting_transport][async_send]") {
    rmq_test::FakeServer server;
    std::atomic<int> sends{0};
    std::atomic<int> refuse_with{rmq::response_code::system_error};
    serve(server, [&](rmq_test::FakeSession& s, const Command& req) {
        s.send(stored(req, ++sends % 2 == 1 ? refuse_with.load() : 0));  // every first attempt refused
    });
    auto producer = producer_for(server);
    producer.start();

    auto retried = producer.send_async(rmq::Message("TopicAsync", "TagA", "retried"));
    REQUIRE(retried.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    CHECK(retried.get().status == rmq::SendStatus::SendOk);
    CHECK(sends.load() == 2);

    refuse_with = rmq::response_code::message_illegal;  // not retryable: the caller gets it at once
    std::promise<int> code;
    producer.send_async(
        rmq::Message("TopicAsync", "TagA", "refused"),
        [&](const rmq::SendResult&) { code.set_value(0); },
        [&](const std::exception_ptr& e) {
            try {
                std::rethrow_exception(e);
            } catch (const rmq::BrokerError& be) {
                code.set_value(be.code());
            } catch (...) {
                code.set_value(-1);
            }
        });
    auto f = code.get_future();
    REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    CHECK(f.get() == rmq::response_code::message_illegal);
    CHECK(sends.load() == 3);
    producer.shutdown();
}

// The refusal is made on the io thread and handed to the future by a producer thread; the caller reads it
// while those threads drop what they held. Run under ThreadSanitizer, it reported the exception released
// there as a race with the caller's reads before futures were handed over by detail::CallerFutures.
TEST_CASE("send_async's future holds a refusal made on another thread, in every future form",
          "[remoting_transport][async_send]") {
    rmq_test::FakeServer server;
    serve(server, [&](rmq_test::FakeSession& s, const Command& req) {
        s.send(stored(req, rmq::response_code::message_illegal));  // not retryable
    });
    auto producer = producer_for(server);
    producer.start();
    const rmq::MessageQueue mq{"TopicAsync", "broker-a", 2};
    const auto first = [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int) {
        return mqs.front();
    };
    const std::vector<rmq::Message> batch{rmq::Message("TopicAsync", "b1"), rmq::Message("TopicAsync", "b2")};
    for (int i = 0; i < 20; ++i) {
        std::future<rmq::SendResult> refused;
        switch (i % 4) {
        case 0:
            refused = producer.send_async(rmq::Message("TopicAsync", "TagA", "refused"));
            break;
        case 1:
            refused = producer.send_async(rmq::Message("TopicAsync", "TagA", "refused"), mq);
            break;
        case 2:
            refused = producer.send_async(rmq::Message("TopicAsync", "TagA", "refused"), first, 0);
            break;
        default:
            refused = producer.send_async(std::span<const rmq::Message>(batch));
            break;
        }
        REQUIRE(refused.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
        int code = 0;
        std::string what;
        try {
            (void)refused.get();
        } catch (const rmq::BrokerError& e) {
            code = e.code();
            what = e.what();
        }
        CHECK(code == rmq::response_code::message_illegal);
        CHECK_THAT(what, Catch::Contains("refused by the test"));
    }
    producer.shutdown();
}

TEST_CASE("shutdown waits for the asynchronous sends still on the wire and runs their callbacks",
          "[remoting_transport][async_send]") {
    rmq_test::FakeServer server;
    std::mutex m;
    std::vector<std::thread> answering;
    serve(server, [&](rmq_test::FakeSession& s, const Command& req) {
        // Answered 300 ms later, from another thread.
        const std::lock_guard lock(m);
        answering.emplace_back([session = s.shared_from_this(), answer = stored(req)] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            session->send(answer);
        });
    });
    auto producer = producer_for(server);
    producer.start();
    (void)producer.send(rmq::Message("TopicAsync", "TagA", "route and connection first"));
    std::atomic<int> called{0};
    for (int i = 0; i < 5; ++i) {
        producer.send_async(
            rmq::Message("TopicAsync", "TagA", "late"),
            [&](const rmq::SendResult&) { ++called; },
            [&](const std::exception_ptr&) { ++called; });
    }
    producer.shutdown();
    CHECK(called.load() == 5);
    const std::lock_guard lock(m);
    for (auto& t : answering) {
        t.join();
    }
}

TEST_CASE("send_async over the transport's own send is traced, in every form: a Pub record per answered send",
          "[remoting_transport][async_send][trace]") {
    rmq_test::FakeServer server;
    serve(server, [](rmq_test::FakeSession& s, const Command& req) { s.send(stored(req)); });
    rmq::RemotingConfig c;
    c.namesrv_addr = server.address();
    rmq::ProducerConfig pc{.producer_group = "pg_async_traced"};
    pc.enable_msg_trace = true;
    rmq::Producer<rmq::RemotingTransport> producer(rmq::RemotingTransport{c}, pc);
    producer.start();
    std::vector<std::string> ids;
    const auto first = [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int) {
        return mqs[0];
    };
    const std::vector<rmq::Message> batch{rmq::Message("TopicAsync", "b1"), rmq::Message("TopicAsync", "b2")};
    for (int i = 0; i < 3; ++i) {
        const rmq::Message msg("TopicAsync", "TagA", "traced " + std::to_string(i));
        std::vector<std::future<rmq::SendResult>> fs;
        fs.push_back(producer.send_async(msg));
        fs.push_back(producer.send_async(msg, rmq::MessageQueue{"TopicAsync", "broker-a", 1}));
        fs.push_back(producer.send_async(msg, first, 0));
        fs.push_back(producer.send_async(std::span<const rmq::Message>(batch)));
        for (auto& f : fs) {
            REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
            ids.push_back(f.get().msg_id);
        }
    }
    producer.shutdown();  // sends the queued trace records
    std::string traces;
    for (const auto& req : server.received()) {
        if (req.code == rc::send_message_v2 &&
            req.field("b") == std::optional<std::string_view>(rmq::rmq_sys_trace_topic)) {
            traces += req.body;
        }
    }
    for (const auto& id : ids) {
        INFO(id);
        CHECK(traces.find(id) != std::string::npos);
    }
    CHECK(producer.trace_stats().dropped == 0);
}

}  // namespace async_send_test
