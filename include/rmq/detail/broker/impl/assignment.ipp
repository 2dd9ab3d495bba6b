#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <span>

#include <rmq/allocate/averagely.hpp>
#include <rmq/allocate/averagely_by_circle.hpp>

#include <rmq/detail/broker/assignment.hpp>

namespace rmq::detail {

namespace assignment_detail {

using Strategy = std::function<std::vector<MessageQueue>(
    const std::string&, const std::string&, std::span<const MessageQueue>, std::span<const std::string>)>;

/// QueryAssignmentProcessor's name2LoadStrategy: the two strategies a 5.3.3 broker registers.
inline std::optional<Strategy> strategy_named(const std::string& name) {
    auto wrap = [](auto policy) -> Strategy {
        return [policy](const std::string& g, const std::string& c, auto all, auto ids) {
            return policy.allocate(g, c, all, ids);
        };
    };
    if (name == AllocateAveragely::name()) {
        return wrap(AllocateAveragely{});
    }
    if (name == AllocateAveragelyByCircle::name()) {
        return wrap(AllocateAveragelyByCircle{});
    }
    return std::nullopt;
}

/// POP with popShareQueueNum > 0: this member's queues and those of the N members after it; with more
/// members than queues, one queue each (QueryAssignmentProcessor.allocate) so every member pops something.
inline std::vector<MessageQueue> pop_shared(const Strategy& strategy,
                                            const std::string& group,
                                            const std::string& client_id,
                                            const std::vector<MessageQueue>& mq_all,
                                            const std::vector<std::string>& cid_all,
                                            std::int32_t share) {
    const auto pos = std::find(cid_all.begin(), cid_all.end(), client_id);
    if (pos == cid_all.end()) {
        return {};
    }
    auto index = static_cast<std::size_t>(std::distance(cid_all.begin(), pos));
    if (cid_all.size() > mq_all.size()) {
        return {mq_all[index % mq_all.size()]};
    }
    auto out = strategy(group, client_id, mq_all, cid_all);
    for (std::int32_t i = 1; i <= share; ++i) {
        index = (index + 1) % cid_all.size();
        auto more = strategy(group, cid_all[index], mq_all, cid_all);
        out.insert(out.end(), more.begin(), more.end());
    }
    return out;
}

/// POP with popShareQueueNum <= 0: every member pops every queue, one entry per broker (queue id -1).
inline std::vector<MessageQueue> pop_everything(const std::vector<MessageQueue>& mq_all) {
    std::vector<MessageQueue> out;
    out.reserve(mq_all.size());
    for (const auto& mq : mq_all) {
        out.push_back(MessageQueue{mq.topic, mq.broker_name, -1});
    }
    return out;
}

}  // namespace assignment_detail

RMQ_DECL std::optional<std::vector<MessageQueue>> assign_queues(const std::string& strategy,
                                                                const std::string& group,
                                                                const std::string& client_id,
                                                                const std::vector<MessageQueue>& mq_all,
                                                                const std::vector<std::string>& cid_all,
                                                                const SetMessageRequestModeArgs& mode) {
    const auto allocate = assignment_detail::strategy_named(strategy);
    if (!allocate) {
        return std::nullopt;
    }
    std::vector<MessageQueue> out;
    try {
        if (mode.mode != MessageRequestMode::Pop) {
            out = (*allocate)(group, client_id, mq_all, cid_all);
        } else if (mode.pop_share_queue_num <= 0) {
            out = assignment_detail::pop_everything(mq_all);
        } else {
            out = assignment_detail::pop_shared(
                *allocate, group, client_id, mq_all, cid_all, mode.pop_share_queue_num);
        }
    } catch (const std::exception&) {
        return std::nullopt;  // Java: "allocate message queue exception", a null answer
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace rmq::detail
