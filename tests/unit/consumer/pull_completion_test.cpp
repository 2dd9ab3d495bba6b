// A pull's answer reaches the consumer by one path, never inside the transport's own pull() call.

#include <atomic>
#include <memory>
#include <utility>

#include "consumer_support.hpp"
#include <forwarding_transport.hpp>

#include <catch2/catch.hpp>

namespace pull_completion_test {

namespace {

struct Nesting {
    std::atomic<int> current{0};
    std::atomic<int> deepest{0};
    std::atomic<int> pulls{0};
};

/// Answers every pull NO_NEW_MSG from inside pull() itself, as a transport with a ready answer may. Past a
/// depth of 32 it stops answering, so a consumer that re-entered would stall instead of overflowing the
/// stack.
class InlineAnswers : public rmq_test::ForwardingTransport {
public:
    InlineAnswers(rmq::InProcessTransport inner, std::shared_ptr<Nesting> nesting)
        : ForwardingTransport(std::move(inner))
        , nesting_(std::move(nesting)) {}

    void pull(const rmq::PullArgs& args, rmq::PullCallback done) {
        const int depth = ++nesting_->current;
        int seen = nesting_->deepest.load();
        while (depth > seen && !nesting_->deepest.compare_exchange_weak(seen, depth)) {
        }
        ++nesting_->pulls;
        if (depth <= 32) {
            rmq::PullResult none;
            none.status = rmq::PullStatus::NoNewMsg;
            none.next_begin_offset = args.queue_offset;
            done(std::move(none));
        }
        --nesting_->current;
    }

private:
    std::shared_ptr<Nesting> nesting_;
};

using InlineConsumer =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateAveragely, rmq::RemoteOffsetStore, InlineAnswers>;

}  // namespace

TEST_CASE("a pull answered inside the transport's pull() is handled after it returns, never re-entering it",
          "[consumer][pull]") {
    rmq::InProcessBroker broker{consumer_test::fast_broker_config()};
    broker.create_topic("Inline", 1);
    auto nesting = std::make_shared<Nesting>();
    InlineConsumer consumer{InlineAnswers(broker.connect(), nesting), consumer_test::fast_config("inline")};
    consumer.subscribe("Inline", "*");
    consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    // NO_NEW_MSG pulls again at once: the loop keeps pulling only if each answer ran after its pull()
    // returned.
    const bool kept_pulling =
        consumer_test::eventually([&] { return nesting->pulls.load() >= 200; }, std::chrono::seconds(10));
    consumer.shutdown();
    INFO("pulls " << nesting->pulls.load() << ", deepest nesting " << nesting->deepest.load());
    CHECK(kept_pulling);
    CHECK(nesting->deepest.load() == 1);
}

}  // namespace pull_completion_test
