// An allocation strategy that takes the previous assignment is called with it (docs/policies/order.md).

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;

namespace {

/// Keeps what it owned (sticky) and records the previous assignments it was shown.
struct RecordingSticky {
    struct Log {
        std::mutex mutex;
        std::vector<std::size_t> previous_sizes;
    };

    std::shared_ptr<Log> log = std::make_shared<Log>();

    std::vector<rmq::MessageQueue> allocate(std::string_view group,
                                            std::string_view cid,
                                            std::span<const rmq::MessageQueue> mq_all,
                                            std::span<const std::string> cid_all) const {
        return rmq::AllocateAveragely{}.allocate(group, cid, mq_all, cid_all);
    }

    std::vector<rmq::MessageQueue> allocate(std::string_view group,
                                            std::string_view cid,
                                            std::span<const rmq::MessageQueue> mq_all,
                                            std::span<const std::string> cid_all,
                                            std::span<const rmq::MessageQueue> previous) const {
        {
            const std::lock_guard lock(log->mutex);
            log->previous_sizes.push_back(previous.size());
        }
        if (!previous.empty()) {
            return {previous.begin(), previous.end()};
        }
        return allocate(group, cid, mq_all, cid_all);
    }
};

static_assert(rmq::AllocatePolicy<RecordingSticky>);

static_assert(rmq::StickyAllocatePolicy<RecordingSticky>);

}  // namespace

TEST_CASE("a sticky allocation policy is shown the queues owned before", "[consumer][sticky]") {
    rmq::InProcessBroker broker;
    broker.create_topic("Sticky", 4);
    RecordingSticky sticky;
    const auto log = sticky.log;
    rmq::Consumer<rmq::Concurrently, RecordingSticky, rmq::RemoteOffsetStore, rmq::InProcessTransport>
        consumer{broker.connect(), fast_config("sticky_group"), sticky};
    consumer.subscribe("Sticky", "*");
    consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(eventually([&] {
        const std::lock_guard lock(log->mutex);
        // Sticky: 4 queues; retry topic: 1 queue. Once both are owned, later rebalances show them.
        return std::find(log->previous_sizes.begin(), log->previous_sizes.end(), 4u) !=
               log->previous_sizes.end();
    }));
    consumer.shutdown();
    const std::lock_guard lock(log->mutex);
    CHECK(log->previous_sizes.front() == 0);  // the first rebalance has no history
}
