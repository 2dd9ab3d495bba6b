#pragma once

/// @file detail/consumer/subscription_check.hpp
/// rmq::detail::SubscriptionCheck: members of one group must subscribe identically, or messages are silently
/// skipped (docs/semantics.md). After each rebalance (clustering) this member's subscriptions are compared
/// with every other member's when the transport can list the group (rmq::HasGroupMembers); pull answers
/// SUBSCRIPTION_NOT_EXIST (Puller) are the fallback signal.

#include <exception>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <rmq/concepts/transport.hpp>
#include <rmq/subscription.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/consumer/state.hpp>

namespace rmq::detail {

template <class T>
class SubscriptionCheck {
public:
    explicit SubscriptionCheck(ConsumerState<T>& state)
        : s_(state) {}

    /// Notes an inconsistency (or its end) in the state and its stats.
    void check(const std::map<std::string, SubscriptionData>& mine);

private:
    [[nodiscard]] std::vector<std::string> differences(const std::map<std::string, SubscriptionData>& mine);

    ConsumerState<T>& s_;
};

template <class T>
void SubscriptionCheck<T>::check(const std::map<std::string, SubscriptionData>& mine) {
    if constexpr (HasGroupMembers<typename T::Transport>) {
        std::vector<std::string> found;
        try {
            found = differences(mine);
        } catch (const std::exception& e) {
            log_repeated(LogLevel::Warn,
                         fmt::format("members {}", s_.group),
                         "group [{}]: listing the group's members failed: {}",
                         s_.group,
                         e.what());
            return;
        }
        if (!found.empty()) {
            std::string why;
            for (const auto& d : found) {
                why += why.empty() ? d : "; " + d;
            }
            s_.note_subscription_inconsistency(why);
        } else if (s_.subscription_inconsistent.exchange(false)) {
            s_.stats.set_subscription_inconsistent(false);
            log_line(LogLevel::Info, "group [{}]: subscriptions are consistent again", s_.group);
        }
    } else {
        (void)mine;
    }
}

/// One line per other member whose subscriptions (retry topics aside) differ from this member's.
template <class T>
std::vector<std::string>
SubscriptionCheck<T>::differences(const std::map<std::string, SubscriptionData>& mine) {
    const auto describe = [](const std::map<std::string, std::string>& subs) {
        std::string out;
        for (const auto& [topic, expr] : subs) {
            out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", topic, expr);
        }
        return out;
    };
    std::map<std::string, std::string> ours;
    for (const auto& [topic, sd] : mine) {
        if (!is_retry_topic(topic)) {
            ours[topic] = sd.sub_string;
        }
    }
    std::vector<std::string> out;
    for (const auto& member : s_.transport.group_members(s_.group)) {
        if (member.client_id == s_.client_id) {
            continue;
        }
        std::map<std::string, std::string> theirs;
        for (const auto& sd : member.consumer_data.subscription_data_set) {
            if (!is_retry_topic(sd.topic)) {
                theirs[sd.topic] = sd.sub_string;
            }
        }
        if (theirs != ours) {
            out.push_back(fmt::format("member {} subscribes {{{}}}, this member {} subscribes {{{}}}",
                                      member.client_id,
                                      describe(theirs),
                                      s_.client_id,
                                      describe(ours)));
        }
    }
    return out;
}

}  // namespace rmq::detail
