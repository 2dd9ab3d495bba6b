#pragma once

/// @file detail/lite_pull/assign.hpp
/// rmq::detail::AssignOr<Allocate>: the allocation policy of a rmq::LitePullConsumer. Before assign() it is
/// `Allocate` (subscribe: the group shares the queues); after, the assigned queues of a topic are this
/// member's whatever the group (rmq::detail::PinsQueues), as Java's assign() bypasses the rebalance.

#include <algorithm>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/message_queue.hpp>

namespace rmq::detail {

/// The queues given to assign(), shared by the consumer and the copy of the policy its core holds.
class Assignment {
public:
    void set(std::vector<MessageQueue> mqs) {
        const std::lock_guard lock(mutex_);
        queues_ = std::set<MessageQueue>(mqs.begin(), mqs.end());
    }

    [[nodiscard]] std::optional<std::set<MessageQueue>> get() const {
        const std::lock_guard lock(mutex_);
        return queues_;
    }

private:
    mutable std::mutex mutex_;
    std::optional<std::set<MessageQueue>> queues_;
};

template <class Allocate>
class AssignOr {
public:
    explicit AssignOr(Allocate allocate, std::shared_ptr<Assignment> assignment)
        : allocate_(std::move(allocate))
        , assignment_(std::move(assignment)) {}

    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view group,
                                                     std::string_view current_cid,
                                                     std::span<const MessageQueue> mq_all,
                                                     std::span<const std::string> cid_all) const {
        return allocate_.allocate(group, current_cid, mq_all, cid_all);
    }

    [[nodiscard]] std::vector<MessageQueue> allocate(std::string_view group,
                                                     std::string_view current_cid,
                                                     std::span<const MessageQueue> mq_all,
                                                     std::span<const std::string> cid_all,
                                                     std::span<const MessageQueue> previous) const
    requires StickyAllocatePolicy<Allocate>
    {
        return allocate_.allocate(group, current_cid, mq_all, cid_all, previous);
    }

    /// After assign(): the assigned queues of `topic` that its route has.
    [[nodiscard]] std::optional<std::vector<MessageQueue>>
    pinned(const std::string& topic, std::span<const MessageQueue> mq_all) const {
        const auto assigned = assignment_->get();
        if (!assigned) {
            return std::nullopt;
        }
        std::vector<MessageQueue> out;
        std::copy_if(mq_all.begin(), mq_all.end(), std::back_inserter(out), [&](const MessageQueue& mq) {
            return mq.topic == topic && assigned->contains(mq);
        });
        return out;
    }

private:
    Allocate allocate_;
    std::shared_ptr<Assignment> assignment_;
};

}  // namespace rmq::detail
