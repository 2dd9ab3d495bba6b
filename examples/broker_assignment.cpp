// Broker-side assignment (RocketMQ 5.x) on the embedded broker: two push consumers of one group with
// rmq::AllocateByBroker let the broker split a topic's queues (QUERY_ASSIGNMENT) instead of computing the
// split themselves. The broker assigns in PULL mode here (its default), so each member also subscribes the
// topic's POP retry topic `%RETRY%<group>_<topic>` and its heartbeat reports it, as Java's client does; in
// POP mode (mqadmin setConsumeMode) it would pop instead. See docs/policies/allocate.md.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <rmq/allocate/by_broker.hpp>
#include <rmq/consumer.hpp>
#include <rmq/pop.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

using Member =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateByBroker, rmq::RemoteOffsetStore, rmq::InProcessTransport>;

/// Polls `done` for up to 30 s (the consumers work on their own threads).
template <class F>
bool wait_for(F done) {
    for (int i = 0; i < 3000 && !done(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return done();
}

std::size_t owned(const Member& m) {
    const auto queues = m.assigned_queues();
    return static_cast<std::size_t>(std::count_if(
        queues.begin(), queues.end(), [](const rmq::MessageQueue& mq) { return mq.topic == "Orders"; }));
}

/// Whether every member's last heartbeat, as the broker keeps it, subscribes `topic`.
bool all_heartbeats_subscribe(const rmq::InProcessBroker& broker, const std::string& topic) {
    const auto members = broker.group_members("order_handlers");
    return members.size() == 2 && std::all_of(members.begin(), members.end(), [&](const rmq::GroupMember& m) {
               const auto& subs = m.consumer_data.subscription_data_set;
               return std::any_of(subs.begin(), subs.end(), [&](const rmq::SubscriptionData& sd) {
                   return sd.topic == topic;
               });
           });
}

}  // namespace

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("Orders", 4);

    std::atomic<int> consumed{0};
    std::vector<std::unique_ptr<Member>> members;
    for (int i = 0; i < 2; ++i) {
        members.push_back(std::make_unique<Member>(broker.connect(),
                                                   rmq::ConsumerConfig{.consumer_group = "order_handlers"}));
        members.back()->subscribe("Orders", "*");
        members.back()->register_listener(
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                consumed += static_cast<int>(msgs.size());
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        members.back()->start();
    }
    // The broker answers each member with its half (AllocateMessageQueueAveragely on the broker).
    const bool split = wait_for([&] { return owned(*members[0]) == 2 && owned(*members[1]) == 2; });
    const auto first = owned(*members[0]);
    const auto second = owned(*members[1]);

    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "order_producer"});
    producer.start();
    for (int i = 0; i < 20; ++i) {
        (void)producer.send(rmq::Message("Orders", "New", fmt::format("order-{}", i)));
    }
    producer.shutdown();
    const bool all = wait_for([&] { return consumed == 20; });

    const auto retry = rmq::pop_retry_topic("Orders", "order_handlers");
    const bool subscribed = wait_for([&] { return all_heartbeats_subscribe(broker, retry); });
    for (const auto& m : members) {
        m->shutdown();
    }
    fmt::print(
        "broker-side assignment: {} + {} queues of Orders, {} messages consumed, heartbeats {}subscribe {}\n",
        first,
        second,
        consumed.load(),
        subscribed ? "" : "do NOT ",
        retry);
    return split && all && subscribed ? 0 : 1;
}
