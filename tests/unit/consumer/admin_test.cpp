// The consumer's admin callbacks (rmq::AdminHandler) on the embedded broker: running info, offset reset
// (Concurrently and Orderly), offset table and consume-directly, called the way a transport calls them.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/ranges.h>

#include <rmq/admin.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::produce;
using consumer_test::Recorder;

namespace {

/// Where the consumer registered its handlers (shared by copies of the transport).
struct AdminSlot {
    std::mutex mutex;
    std::map<std::string, rmq::AdminHandler> handlers;

    rmq::AdminHandler get(const std::string& group) {
        const std::lock_guard lock(mutex);
        const auto it = handlers.find(group);
        return it == handlers.end() ? rmq::AdminHandler{} : it->second;
    }
};

/// The embedded broker's transport plus rmq::HasAdminHandler.
class AdminTransport : public rmq::InProcessTransport {
public:
    AdminTransport(rmq::InProcessTransport inner, std::shared_ptr<AdminSlot> slot)
        : rmq::InProcessTransport(std::move(inner))
        , slot_(std::move(slot)) {}

    void set_admin_handler(const std::string& group, rmq::AdminHandler h) {
        const std::lock_guard lock(slot_->mutex);
        if (h) {
            slot_->handlers[group] = std::move(h);
        } else {
            slot_->handlers.erase(group);
        }
    }

private:
    std::shared_ptr<AdminSlot> slot_;
};

static_assert(rmq::Transport<AdminTransport> && rmq::HasAdminHandler<AdminTransport>);
static_assert(!rmq::HasAdminHandler<rmq::InProcessTransport>);

/// CONSUME_MESSAGE_DIRECTLY through `admin`, waiting for its answer.
rmq::ConsumeDirectlyResult
directly(const rmq::AdminHandler& admin, const rmq::MessageExt& msg, const std::string& broker) {
    auto answer = std::make_shared<std::promise<rmq::ConsumeDirectlyResult>>();
    auto f = answer->get_future();
    admin.consume_directly(msg, broker, [answer](rmq::ConsumeDirectlyResult r) { answer->set_value(r); });
    REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    return f.get();
}

template <class Order>
using AdminConsumer = rmq::Consumer<Order, rmq::AllocateAveragely, rmq::RemoteOffsetStore, AdminTransport>;

/// Offsets seen per queue by a listener.
struct Seen {
    Recorder rec;
    std::map<int, std::vector<std::int64_t>> offsets;
    int total = 0;

    void add(std::span<const rmq::MessageExt> msgs) {
        rec.update([&] {
            for (const auto& m : msgs) {
                offsets[m.queue_id()].push_back(m.queue_offset());
                ++total;
            }
        });
    }

    int count() {
        return rec.read([&] { return total; });
    }
};

rmq::ConsumeConcurrentlyStatus concurrently(Seen& seen, std::span<const rmq::MessageExt> msgs) {
    seen.add(msgs);
    return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
}

/// Resets every queue of "T" to `to` through the handler and checks that the consumer delivers each queue's
/// messages again from there.
template <class Order, class Register>
void check_reset(const std::string& group, Register&& register_listener) {
    constexpr int queues = 4;
    constexpr int count = 40;
    rmq::InProcessBroker broker;
    broker.create_topic("T", queues);
    produce(broker, "T", queues, count);
    auto slot = std::make_shared<AdminSlot>();
    Seen seen;
    AdminConsumer<Order> consumer{AdminTransport(broker.connect(), slot), [&] {
                                      auto c = fast_config(group);
                                      c.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
                                      return c;
                                  }()};
    consumer.subscribe("T", "*");
    register_listener(consumer, seen);
    consumer.start();
    REQUIRE(seen.rec.wait([&] { return seen.total == count; }));
    auto admin = slot->get(consumer.group());
    REQUIRE(admin);
    // The listener counts a message before the consumer commits its offset: wait for the commits.
    const auto all_committed = [&] {
        const auto t = admin.offset_table("T");
        return t.size() == static_cast<std::size_t>(queues) &&
               std::all_of(t.begin(), t.end(), [&](const auto& e) { return e.second == count / queues; });
    };
    REQUIRE(eventually(all_committed));
    rmq::QueueOffsets reset;
    for (int q = 0; q < queues; ++q) {
        reset.emplace_back(broker.queue("T", q), 3);
    }
    admin.reset_offset("T", reset);
    const int again = queues * (count / queues - 3);
    REQUIRE(seen.rec.wait([&] { return seen.total == count + again; }));
    seen.rec.read([&] {
        for (int q = 0; q < queues; ++q) {
            const auto& o = seen.offsets[q];
            INFO("queue " << q << ": " << fmt::format("{}", fmt::join(o, " ")));
            REQUIRE(o.size() == static_cast<std::size_t>(count / queues + count / queues - 3));
            // After the reset: offsets 3.. again, in queue order when orderly.
            std::vector<std::int64_t> after(o.begin() + count / queues, o.end());
            if (!Order::requires_queue_lock) {
                std::sort(after.begin(), after.end());
            }
            CHECK(after == std::vector<std::int64_t>{3, 4, 5, 6, 7, 8, 9});
        }
        return 0;
    });
    REQUIRE(eventually(all_committed));
    consumer.shutdown();
    CHECK_FALSE(slot->get(consumer.group()));
}

}  // namespace

TEST_CASE("admin: reset_offset makes a running Concurrently consumer consume again from the new offsets",
          "[consumer][admin]") {
    check_reset<rmq::Concurrently>("adm_reset_c", [](auto& consumer, Seen& seen) {
        consumer.register_listener(
            [&seen](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                return concurrently(seen, msgs);
            });
    });
}

TEST_CASE("admin: reset_offset makes a running Orderly consumer consume again from the new offsets",
          "[consumer][admin]") {
    check_reset<rmq::Orderly>("adm_reset_o", [](auto& consumer, Seen& seen) {
        consumer.register_listener(
            [&seen](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
                seen.add(msgs);
                return rmq::ConsumeOrderlyStatus::Success;
            });
    });
}

TEST_CASE("admin: running_info has the PROP_ entries, each owned queue and each subscribed topic",
          "[consumer][admin]") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 2);
    produce(broker, "T", 2, 10);
    auto slot = std::make_shared<AdminSlot>();
    Seen seen;
    auto config = fast_config("adm_info");
    config.consume_from_where = rmq::ConsumeFromWhere::FirstOffset;
    AdminConsumer<rmq::Orderly> consumer{AdminTransport(broker.connect(), slot), config};
    consumer.subscribe("T", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        seen.add(msgs);
        return rmq::ConsumeOrderlyStatus::Success;
    });
    consumer.start();
    REQUIRE(seen.rec.wait([&] { return seen.total == 10; }));
    const auto admin = slot->get(consumer.group());
    REQUIRE(admin);
    rmq::ConsumerRunningInfo info;
    // The retry topic's queue is owned too (as in Java's mqTable): only T's are looked at.
    const auto topic_queues = [&] {
        info = admin.running_info();
        std::erase_if(info.queues, [](const auto& q) { return q.mq.topic != "T"; });
        return info.queues.size() == 2 && std::all_of(info.queues.begin(),
                                                      info.queues.end(),
                                                      [](const auto& q) { return q.commit_offset == 5; });
    };
    REQUIRE(eventually(topic_queues));
    const std::map<std::string, std::string> props(info.properties.begin(), info.properties.end());
    CHECK(props.at("PROP_CONSUMEORDERLY") == "true");
    CHECK(props.at("PROP_THREADPOOL_CORE_SIZE") == std::to_string(config.consume_thread_min));
    CHECK(std::stoll(props.at("PROP_CONSUMER_START_TIMESTAMP")) > 1'600'000'000'000);
    for (const auto& q : info.queues) {
        CHECK(q.mq.topic == "T");
        CHECK(q.info.locked);
        CHECK_FALSE(q.info.dropped);
        CHECK(q.info.last_pull_timestamp > 1'600'000'000'000);  // wall clock, as Java
    }
    std::vector<std::string> topics;
    for (const auto& t : info.topics) {
        topics.push_back(t.topic);
    }
    CHECK(topics == std::vector<std::string>{"%RETRY%adm_info", "T"});
    const auto t =
        std::find_if(info.topics.begin(), info.topics.end(), [](const auto& x) { return x.topic == "T"; });
    CHECK(t->pull_tps > 0);
}

TEST_CASE(
    "admin: consume_directly calls the listener with the message and maps its answer, offsets untouched",
    "[consumer][admin]") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 1);
    auto slot = std::make_shared<AdminSlot>();
    std::atomic<int> mode{0};
    Recorder rec;
    std::vector<std::string> bodies;
    std::vector<std::string> queues;
    AdminConsumer<rmq::Concurrently> consumer{AdminTransport(broker.connect(), slot),
                                              fast_config("adm_direct")};
    consumer.subscribe("T", "*");
    consumer.register_listener(
        [&](std::span<const rmq::MessageExt> msgs,
            rmq::ConsumeConcurrentlyContext& ctx) -> std::optional<rmq::ConsumeConcurrentlyStatus> {
            rec.update([&] {
                for (const auto& m : msgs) {
                    bodies.push_back(m.body());
                }
                queues.push_back(fmt::format("{}", ctx.message_queue()));
            });
            switch (mode.load()) {
            case 1:
                return rmq::ConsumeConcurrentlyStatus::ReconsumeLater;
            case 2:
                throw std::runtime_error("boom");
            case 3:
                return std::nullopt;
            default:
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            }
        });
    consumer.start();
    const auto admin = slot->get(consumer.group());
    REQUIRE(admin);
    rmq::MessageExt msg;
    msg.set_topic("T");
    msg.set_queue_id(0);
    msg.set_queue_offset(7);
    msg.set_body("direct");
    const auto r = directly(admin, msg, "broker-x");
    CHECK(r.status == rmq::ConsumeDirectlyStatus::Success);
    CHECK_FALSE(r.order);
    CHECK(r.auto_commit);
    CHECK(r.remark.empty());
    mode = 1;
    CHECK(directly(admin, msg, "broker-x").status == rmq::ConsumeDirectlyStatus::Later);
    mode = 2;
    const auto thrown = directly(admin, msg, "broker-x");
    CHECK(thrown.status == rmq::ConsumeDirectlyStatus::ThrowException);
    CHECK(thrown.remark == "boom");
    mode = 3;
    CHECK(directly(admin, msg, "broker-x").status == rmq::ConsumeDirectlyStatus::ReturnNull);
    rec.read([&] {
        CHECK(bodies == std::vector<std::string>(4, "direct"));
        CHECK(queues.front() == fmt::format("{}", rmq::MessageQueue{"T", "broker-x", 0}));
        return 0;
    });
    const auto mq = broker.queue("T", 0);
    CHECK(consumer.offset_store().read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) <= 0);
    CHECK(java_name(rmq::ConsumeDirectlyStatus::ReturnNull) == "CR_RETURN_NULL");
}

TEST_CASE("admin: consume_directly runs the listener on a consume thread, the caller only queues it",
          "[consumer][admin]") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 1);
    auto slot = std::make_shared<AdminSlot>();
    std::promise<void> release;
    auto released = release.get_future().share();
    std::promise<std::thread::id> ran_on;
    AdminConsumer<rmq::Concurrently> consumer{AdminTransport(broker.connect(), slot),
                                              fast_config("adm_direct_pool")};
    consumer.subscribe("T", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        ran_on.set_value(std::this_thread::get_id());
        (void)released.wait_for(std::chrono::seconds(5));  // a slow listener (bounded if run inline)
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    rmq::MessageExt msg;
    msg.set_topic("T");
    auto answer = std::make_shared<std::promise<rmq::ConsumeDirectlyResult>>();
    const auto begin = std::chrono::steady_clock::now();
    slot->get(consumer.group()).consume_directly(msg, "b", [answer](rmq::ConsumeDirectlyResult r) {
        answer->set_value(r);
    });
    const auto call_took = std::chrono::steady_clock::now() - begin;
    auto ran = ran_on.get_future();
    REQUIRE(ran.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    CHECK(ran.get() != std::this_thread::get_id());
    CHECK(call_took < std::chrono::seconds(2));  // it did not wait for the listener
    release.set_value();
    auto f = answer->get_future();
    REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    CHECK(f.get().status == rmq::ConsumeDirectlyStatus::Success);
    consumer.shutdown();
}

TEST_CASE("admin: an Orderly consume_directly answers order and the context's auto_commit",
          "[consumer][admin]") {
    rmq::InProcessBroker broker;
    broker.create_topic("T", 1);
    auto slot = std::make_shared<AdminSlot>();
    AdminConsumer<rmq::Orderly> consumer{AdminTransport(broker.connect(), slot), fast_config("adm_direct_o")};
    consumer.subscribe("T", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt>, rmq::ConsumeOrderlyContext& ctx) {
        ctx.set_auto_commit(false);
        return rmq::ConsumeOrderlyStatus::Rollback;
    });
    consumer.start();
    rmq::MessageExt msg;
    msg.set_topic("T");
    const auto r = directly(slot->get(consumer.group()), msg, "b");
    CHECK(r.order);
    CHECK_FALSE(r.auto_commit);
    CHECK(r.status == rmq::ConsumeDirectlyStatus::Rollback);
}
