#pragma once

/// @file detail/consumer/heartbeat.hpp
/// rmq::detail::Heartbeat: the consumer's periodic report to brokers (client id, group, subscriptions,
/// message model), at start, on each timer tick, and when its queue set or subscriptions change.

#include <exception>
#include <utility>

#include <fmt/format.h>

#include <rmq/protocol.hpp>

#include <rmq/detail/consumer/poll_hooks.hpp>
#include <rmq/detail/consumer/state.hpp>

namespace rmq::detail {

template <class T>
class Heartbeat {
public:
    explicit Heartbeat(ConsumerState<T>& state)
        : s_(state) {}

    void send() {
        if (s_.stopping.load()) {
            return;
        }
        ConsumerData data;
        data.group_name = s_.group;
        // Java: a lite pull consumer is CONSUME_ACTIVELY ("PULL" in admin tools), a push consumer PASSIVELY.
        data.consume_type =
            PollDriven<typename T::Order> ? ConsumeType::ConsumeActively : ConsumeType::ConsumePassively;
        data.message_model = s_.config.message_model;
        data.consume_from_where = s_.config.consume_from_where;
        data.unit_mode = s_.config.unit_mode;
        for (auto& [topic, sd] : s_.subscriptions.copy()) {
            data.subscription_data_set.push_back(std::move(sd));
        }
        HeartbeatData hb;
        hb.client_id = s_.client_id;
        hb.consumer_data_set.push_back(std::move(data));
        try {
            s_.transport.heartbeat(hb);
        } catch (const std::exception& e) {
            log_repeated(LogLevel::Warn,
                         fmt::format("heartbeat {}", s_.group),
                         "group [{}]: heartbeat failed: {}",
                         s_.group,
                         e.what());
        }
    }

private:
    ConsumerState<T>& s_;
};

}  // namespace rmq::detail
