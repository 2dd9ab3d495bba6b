#pragma once

/// @file detail/consumer/rebalancer.hpp
/// rmq::detail::Rebalancer: Java's RebalanceImpl, on the event loop: periodically, on a membership
/// notification, on a route change and at start. For each subscribed topic (and %RETRY%group in clustering)
/// the queues and client ids are sorted, the allocation policy picks this member's queues (or, under a
/// rmq::BrokerAllocatePolicy, a broker answers QUERY_ASSIGNMENT with them), and the queue
/// table follows: dropped queues have their offsets persisted and are released by the order policy; new
/// queues (under an order policy that requires it: once the broker lock is held) get a start offset and a
/// pull loop. Every path that removes a queue (rebalance, unsubscribe, an illegal offset, an admin reset)
/// goes through remove_queue.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <rmq/assignment.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/subscription.hpp>

#include <rmq/detail/consumer/heartbeat.hpp>
#include <rmq/detail/consumer/offset_committer.hpp>
#include <rmq/detail/consumer/puller.hpp>
#include <rmq/detail/consumer/queue_locker.hpp>
#include <rmq/detail/consumer/state.hpp>
#include <rmq/detail/consumer/subscription_check.hpp>

namespace rmq::detail {

template <class T>
class Rebalancer {
public:
    using Allocate = typename T::Allocate;
    using Service = typename T::Service;

    Rebalancer(ConsumerState<T>& state,
               Allocate allocate,
               OffsetCommitter<T>& committer,
               QueueLocker<T>& locker,
               Puller<T>& puller,
               Heartbeat<T>& heartbeat,
               Service& service)
        : s_(state)
        , allocate_(std::move(allocate))
        , committer_(committer)
        , locker_(locker)
        , puller_(puller)
        , heartbeat_(heartbeat)
        , service_(service) {}

    /// Rebalances every subscribed topic now.
    void do_rebalance();
    /// Registers (or removes) the route-change handler with transports that report route changes.
    void watch_route_changes(bool on);
    /// Java's removeUnnecessaryMessageQueue, then out of the table; false: retried at the next rebalance.
    bool remove_queue(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq);

    /// Where the POP queues of a broker-side assignment go (the core's POP mode, when the consumer can run
    /// it; set before start). Without one they are reported once per topic and nothing consumes them.
    using PopQueuesSink =
        std::function<void(const std::string& topic, const std::vector<MessageQueue>& queues)>;

    void set_pop_queues_sink(PopQueuesSink sink) { pop_sink_ = std::move(sink); }

private:
    // impl/rebalancer/rebalance.hpp: topics
    void rebalance_later();
    void rebalance_topic(const std::string& topic);
    void rebalance_by_client(const std::string& topic);
    [[nodiscard]] std::vector<MessageQueue> allocate(const std::string& topic,
                                                     const std::vector<MessageQueue>& mq_all,
                                                     const std::vector<std::string>& cids);
    void message_queue_changed();

    // impl/rebalancer/by_broker.hpp: broker-side assignment (rmq::BrokerAllocatePolicy)
    void rebalance_by_broker(const std::string& topic);
    [[nodiscard]] std::optional<std::vector<MessageQueueAssignment>>
    query_assignment(const std::string& topic);
    /// THE hook for queues the broker assigned in POP mode: called at every broker-side rebalance of `topic`
    /// with its POP assignments (sorted; empty when none, so that the POP side lets go of the old ones).
    void on_pop_assignment(const std::string& topic, const std::vector<MessageQueue>& pop_queues);

    // impl/rebalancer/pop_retry.hpp: the POP retry subscription of a broker-side assignment
    void follow_pop_retry_subscription(const std::string& topic, bool any_pull, bool any_pop);

    // impl/rebalancer/queue_set.hpp: the queue table
    bool update_process_queue_table(const std::string& topic, const std::vector<MessageQueue>& mine);
    bool drop_unwanted_queues(const std::string& topic, const std::vector<MessageQueue>& mine);
    bool add_queue(const MessageQueue& mq);
    void truncate_not_my_topic(const std::map<std::string, SubscriptionData>& subs);
    bool remove_unnecessary_queue(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq);
    [[nodiscard]] bool wait_listener_calls(const ProcessQueue& pq) const;

    static constexpr std::int64_t rebalance_later_delay_millis = 500;
    /// How long removing a queue waits for its running listener calls under a queue lock (4.9.8: 1000 ms).
    static constexpr std::int64_t release_wait_millis = 1000;

    ConsumerState<T>& s_;
    Allocate allocate_;
    OffsetCommitter<T>& committer_;
    QueueLocker<T>& locker_;
    Puller<T>& puller_;
    Heartbeat<T>& heartbeat_;
    Service& service_;
    SubscriptionCheck<T> subscription_check_{s_};
    std::atomic<bool> rebalance_later_pending_{false};
    PopQueuesSink pop_sink_;
    /// Topics whose POP assignments on_pop_assignment has reported for want of a sink (event loop only).
    std::set<std::string> pop_assignment_reported_;
};

}  // namespace rmq::detail

#include <rmq/detail/consumer/impl/rebalancer/by_broker.hpp>
#include <rmq/detail/consumer/impl/rebalancer/pop_retry.hpp>
#include <rmq/detail/consumer/impl/rebalancer/queue_set.hpp>
#include <rmq/detail/consumer/impl/rebalancer/rebalance.hpp>
