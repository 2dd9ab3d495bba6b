// Batch acks (BATCH_ACK_MESSAGE) on the embedded broker with a ManualClock: SimpleConsumer::ack(span) and
// ack_async(span) ack every message (none comes back after its invisible time), one request per broker; a
// refused batch comes back whole; a batch of two brokers of which one fails is a PartialAckError naming the
// messages not acked; a transport without batch acks acks one message at a time.

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/transport/in_process.hpp>

namespace batch_ack_test {

namespace {

using namespace std::chrono_literals;

/// What the decorator saw, and which broker's batches it fails.
struct Counts {
    std::atomic<int> acks{0};
    std::atomic<int> batches{0};
    std::atomic<int> batch_receipts{0};
    std::string failing_broker;
};

/// InProcessTransport seen through the members SimpleConsumer uses; with `Batch` false it has no batch
/// ack (rmq::HasBatchAck does not hold).
template <bool Batch>
class Counting {
public:
    Counting(rmq::InProcessTransport inner, std::shared_ptr<Counts> counts)
        : inner_(std::move(inner))
        , counts_(std::move(counts)) {}

    rmq::TopicRoute topic_route(const std::string& topic) { return inner_.topic_route(topic); }

    rmq::PopResult pop_message(const rmq::PopArgs& a) { return inner_.pop_message(a); }

    std::string change_invisible_time(const rmq::ChangeInvisibleTimeArgs& a) {
        return inner_.change_invisible_time(a);
    }

    void ack_message(const rmq::AckArgs& a) {
        ++counts_->acks;
        inner_.ack_message(a);
    }

    void batch_ack_message(const rmq::BatchAckArgs& a)
    requires Batch
    {
        record(a);
        inner_.batch_ack_message(a);
    }

    void batch_ack_message(const rmq::BatchAckArgs& a, const rmq::AckCompletion& done)
    requires Batch
    {
        record(a);
        inner_.batch_ack_message(a, done);
    }

private:
    void record(const rmq::BatchAckArgs& a) {
        ++counts_->batches;
        counts_->batch_receipts += static_cast<int>(a.acks.size());
        const auto broker = rmq::PopReceipt::parse(a.acks.at(0).extra_info).broker_name;
        if (broker == counts_->failing_broker) {
            throw rmq::BrokerError(rmq::response_code::system_error,
                                   "injected: broker " + broker + " refused");
        }
    }

    rmq::InProcessTransport inner_;
    std::shared_ptr<Counts> counts_;
};

static_assert(rmq::HasBatchAck<rmq::InProcessTransport>);
static_assert(rmq::HasBatchAck<Counting<true>>);
static_assert(!rmq::HasBatchAck<Counting<false>>);

struct Fixture {
    std::shared_ptr<rmq::ManualClock> clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker;
    rmq::InProcessTransport producer;
    std::shared_ptr<Counts> counts = std::make_shared<Counts>();

    Fixture()
        : broker([&] {
            rmq::BrokerConfig c;
            c.clock = clock;
            return c;
        }())
        , producer(broker.connect()) {
        broker.create_topic("T", 4);
    }

    void send(int n) {
        for (int i = 0; i < n; ++i) {
            producer.send(rmq::Message("T", "A", fmt::format("m{}", i)), broker.queue("T", i % 4));
        }
    }

    template <bool Batch>
    std::unique_ptr<rmq::SimpleConsumer<Counting<Batch>>> consumer() {
        auto c = std::make_unique<rmq::SimpleConsumer<Counting<Batch>>>(
            Counting<Batch>(broker.connect(), counts), rmq::SimpleConsumerConfig{.consumer_group = "g"});
        c->subscribe("T");
        return c;
    }
};

template <class C>
std::vector<rmq::MessageExt> drain(C& c, std::chrono::milliseconds invisible = 30s) {
    std::vector<rmq::MessageExt> out;
    for (auto got = c.receive(32, invisible); !got.empty(); got = c.receive(32, invisible)) {
        out.insert(out.end(), got.begin(), got.end());
    }
    return out;
}

/// `m` as if popped from another broker: its receipt names `broker`.
rmq::MessageExt from_broker(rmq::MessageExt m, const std::string& broker) {
    auto r = rmq::PopReceipt::of(m);
    r.broker_name = broker;
    m.set_property(rmq::property::pop_ck, r.to_string());
    return m;
}

}  // namespace

TEST_CASE("a batch ack acks every message in one request: none comes back", "[pop][batch_ack]") {
    Fixture f;
    f.send(20);
    auto c = f.consumer<true>();
    const auto got = drain(*c);
    REQUIRE(got.size() == 20);
    REQUIRE(f.broker.pop_in_flight("g") == 20);
    c->ack(got);
    CHECK(f.counts->batches == 1);
    CHECK(f.counts->batch_receipts == 20);
    CHECK(f.counts->acks == 0);
    CHECK(f.broker.pop_in_flight("g") == 0);
    f.clock->advance(60s);  // past the invisible time
    CHECK(c->receive(32, 30s).empty());
    CHECK(f.broker.messages(rmq::pop_retry_topic("T", "g"), 0).empty());
}

TEST_CASE("a batch ack of redelivered and first-time messages acks both", "[pop][batch_ack]") {
    Fixture f;
    f.send(4);
    auto c = f.consumer<true>();
    REQUIRE(drain(*c, 10s).size() == 4);
    f.clock->advance(10s);  // all four back from %RETRY%g_T
    f.send(4);
    const auto got = drain(*c);
    REQUIRE(got.size() == 8);
    int retried = 0;
    for (const auto& m : got) {
        retried += rmq::PopReceipt::of(m).retry ? 1 : 0;
    }
    CHECK(retried == 4);
    c->ack(got);
    CHECK(f.broker.pop_in_flight("g") == 0);
    f.clock->advance(60s);
    CHECK(c->receive(32, 30s).empty());
}

TEST_CASE("ack_async of a span acks every message, its future ready once the broker answered",
          "[pop][batch_ack]") {
    Fixture f;
    f.send(9);
    auto c = f.consumer<true>();
    const auto got = drain(*c);
    REQUIRE(got.size() == 9);
    auto done = c->ack_async(got);
    REQUIRE(done.wait_for(10s) == std::future_status::ready);
    done.get();
    CHECK(f.counts->batches == 1);
    CHECK(f.broker.pop_in_flight("g") == 0);
    f.clock->advance(60s);
    CHECK(c->receive(32, 30s).empty());
    auto none = c->ack_async(std::span<const rmq::MessageExt>{});
    CHECK(none.wait_for(0s) == std::future_status::ready);
}

TEST_CASE("a refused batch ack is reported and its messages come back", "[pop][batch_ack]") {
    Fixture f;
    f.send(5);
    auto c = f.consumer<true>();
    const auto got = drain(*c, 10s);
    REQUIRE(got.size() == 5);
    f.broker.inject_failure(rmq::BrokerRequest::BatchAck, rmq::response_code::system_error);
    CHECK_THROWS_AS(c->ack(got), rmq::BrokerError);  // nothing acked: the broker's error itself
    CHECK(f.broker.pop_in_flight("g") == 5);
    f.clock->advance(10s);
    CHECK(drain(*c).size() == 5);
}

TEST_CASE("a batch ack over two brokers, one failing, names the messages not acked", "[pop][batch_ack]") {
    Fixture f;
    f.send(6);
    auto c = f.consumer<true>();
    auto got = drain(*c, 10s);
    REQUIRE(got.size() == 6);
    f.counts->failing_broker = "broker-b";
    got[1] = from_broker(got[1], "broker-b");
    got[4] = from_broker(got[4], "broker-b");
    try {
        c->ack(got);
        FAIL("no PartialAckError");
    } catch (const rmq::PartialAckError& e) {
        CHECK(e.failed() == std::vector<std::size_t>{1, 4});
        REQUIRE(e.errors().size() == 1);
        CHECK_THROWS_WITH(std::rethrow_exception(e.errors()[0]), Catch::Contains("broker-b refused"));
    }
    CHECK(f.counts->batches == 2);
    CHECK(f.broker.pop_in_flight("g") == 2);  // broker-a's four are acked
    f.clock->advance(10s);
    auto more = drain(*c, 10s);  // the two back from %RETRY%g_T
    REQUIRE(more.size() == 2);

    // The same through ack_async, with two new messages: the future holds it.
    f.send(2);
    const auto fresh = drain(*c, 10s);
    REQUIRE(fresh.size() == 2);
    more.insert(more.end(), fresh.begin(), fresh.end());
    more[0] = from_broker(more[0], "broker-b");
    auto done = c->ack_async(more);
    REQUIRE(done.wait_for(10s) == std::future_status::ready);
    CHECK_THROWS_AS(done.get(), rmq::PartialAckError);
    CHECK(f.broker.pop_in_flight("g") == 1);
}

TEST_CASE("a message without receipt fails the whole ack before anything is sent", "[pop][batch_ack]") {
    Fixture f;
    f.send(2);
    auto c = f.consumer<true>();
    auto got = drain(*c);
    REQUIRE(got.size() == 2);
    got.emplace_back();
    CHECK_THROWS_AS(c->ack(got), rmq::InvalidArgument);
    CHECK_THROWS_AS(c->ack_async(got), rmq::InvalidArgument);
    CHECK(f.counts->batches == 0);
    CHECK(f.broker.pop_in_flight("g") == 2);
}

TEST_CASE("the transport refuses a batch of two brokers' receipts", "[pop][batch_ack]") {
    Fixture f;
    f.send(2);
    auto c = f.consumer<true>();
    const auto got = drain(*c);
    REQUIRE(got.size() == 2);
    auto t = f.broker.connect();
    const rmq::BatchAckArgs mixed{
        {rmq::AckArgs{"g", "T", rmq::PopReceipt::of(got[0]).to_string()},
         rmq::AckArgs{"g", "T", rmq::PopReceipt::of(from_broker(got[1], "x")).to_string()}}};
    CHECK_THROWS_AS(t.batch_ack_message(mixed), rmq::InvalidArgument);
    CHECK_THROWS_AS(t.batch_ack_message(mixed, [](const std::exception_ptr&) {}), rmq::InvalidArgument);
    CHECK_THROWS_AS(t.batch_ack_message(rmq::BatchAckArgs{}), rmq::InvalidArgument);
    CHECK(f.broker.pop_in_flight("g") == 2);  // nothing acked
}

TEST_CASE("without batch acks a span is acked one message at a time", "[pop][batch_ack]") {
    Fixture f;
    f.send(7);
    auto c = f.consumer<false>();
    const auto got = drain(*c);
    REQUIRE(got.size() == 7);
    c->ack(got);
    CHECK(f.counts->acks == 7);
    CHECK(f.counts->batches == 0);
    CHECK(f.broker.pop_in_flight("g") == 0);
    f.clock->advance(60s);
    CHECK(c->receive(32, 30s).empty());
}

}  // namespace batch_ack_test
