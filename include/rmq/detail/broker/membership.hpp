#pragma once

/// @file detail/broker/membership.hpp
/// Consumer group membership on the embedded broker (ConsumerManager, ClientHousekeepingService): heartbeats
/// register clients and the group's one subscription per topic, clients leave by unregistering, by their
/// connection closing or by heartbeat expiry (120 s by default), and every change notifies the remaining
/// members (NOTIFY_CONSUMER_IDS_CHANGED) through the connection each heartbeated on.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/protocol.hpp>
#include <rmq/subscription.hpp>
#include <rmq/transport/broker_config.hpp>

#include <rmq/detail/broker/dispatcher.hpp>

namespace rmq::detail {

/// Where a transport handle's notifications go; set_notification_handler replaces the handler. A producer
/// of a group that set a transaction check handler through the handle gets the group's check-backs there.
struct NotificationSlot {
    std::mutex mutex;
    NotificationHandler handler;
    std::map<std::string, TransactionCheckHandler, std::less<>> transaction_checks;
};

class Membership {
public:
    /// `notify`: BrokerConfig::notify_consumer_ids_changed_enable; `expiry_millis`: channel_expired_timeout.
    Membership(bool notify, std::int64_t expiry_millis) noexcept
        : notify_(notify)
        , expiry_millis_(expiry_millis) {}

    /// A new connection (transport handle) whose members are notified through `slot`; returns its id.
    std::uint64_t register_handle(std::shared_ptr<NotificationSlot> slot);

    /// ClientHousekeepingService.doChannelCloseEvent: the connection's clients leave their groups.
    void close_handle(std::uint64_t handle_id, BrokerTasks& out);

    /// The open connections' slots, oldest first (where a transaction check-back looks for its producer).
    [[nodiscard]] std::vector<std::shared_ptr<NotificationSlot>> slots() const;

    /// ConsumerManager.registerConsumer for one ConsumerData of a heartbeat at steady time `now`: records the
    /// client and updates the group's subscriptions; a new client or a changed topic set notifies the group.
    void register_consumer(const std::string& client_id,
                           const ConsumerData& data,
                           std::uint64_t handle_id,
                           std::int64_t now,
                           BrokerTasks& out);

    /// UNREGISTER_CLIENT: the client leaves the group; the group is notified.
    void unregister(const std::string& client_id, const std::string& group, BrokerTasks& out);

    /// Removes the clients whose last heartbeat is older than the expiry at steady time `now`.
    void expire(std::int64_t now, BrokerTasks& out);

    /// A restart: every client is gone without notice (their connections closed); each comes back with its
    /// next heartbeat. Connections (handles) stay registered: the clients reconnect through them.
    void clear_channels() noexcept { groups_.clear(); }

    /// Steady time the next client expires.
    [[nodiscard]] std::optional<std::int64_t> next_expiry() const;

    /// GET_CONSUMER_LIST_BY_GROUP: sorted client ids; throws rmq::BrokerError(SYSTEM_ERROR) for a group
    /// without members.
    [[nodiscard]] std::vector<std::string> consumer_ids(const std::string& group) const;

    [[nodiscard]] std::vector<GroupMember> members(const std::string& group) const;

    [[nodiscard]] bool has_group(const std::string& group) const { return groups_.contains(group); }

    /// The group's one subscription of the topic, or nullptr.
    [[nodiscard]] const SubscriptionData* find_subscription(const std::string& group,
                                                            const std::string& topic) const;

private:
    struct Channel {
        std::string client_id;
        std::uint64_t handle_id = 0;
        std::int64_t last_update = 0;
        ConsumerData data;
    };

    struct GroupInfo {
        std::map<std::string, Channel> channels;
        std::map<std::string, SubscriptionData> subscriptions;
        ConsumeType consume_type = ConsumeType::ConsumePassively;
        MessageModel message_model = MessageModel::Clustering;
        ConsumeFromWhere consume_from_where = ConsumeFromWhere::LastOffset;
    };

    /// ConsumerGroupInfo.updateSubscription: returns whether the group's topic set changed.
    static bool update_subscriptions(GroupInfo& group, const ConsumerData& data);

    /// Removes the channels `leaves` selects from every group, notifying groups that lost one and erasing
    /// groups left empty.
    void remove_channels(const std::function<bool(const Channel&)>& leaves, BrokerTasks& out);

    void notify_change(const std::string& group_name, const GroupInfo& group, BrokerTasks& out) const;

    bool notify_;
    std::int64_t expiry_millis_;
    std::map<std::string, GroupInfo> groups_;
    std::map<std::uint64_t, std::weak_ptr<NotificationSlot>> handles_;
    std::uint64_t next_handle_id_ = 0;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/membership.ipp>
#endif
