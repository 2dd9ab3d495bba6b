#pragma once

/// @file detail/remoting_transport/state.hpp
/// RemotingTransportState: what every copy of one rmq::RemotingTransport shares. It owns the connection layer
/// and the caches and hands each request to its client call (membership, pull, offsets, locks, send).

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <rmq/admin.hpp>
#include <rmq/assignment.hpp>
#include <rmq/config.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/pop.hpp>
#include <rmq/protocol.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/transport/remoting_config.hpp>
#include <rmq/unique_id.hpp>

#include <rmq/detail/net/client.hpp>
#include <rmq/detail/remoting_transport/broker_requests.hpp>
#include <rmq/detail/remoting_transport/caller.hpp>
#include <rmq/detail/remoting_transport/heartbeat_registry.hpp>
#include <rmq/detail/remoting_transport/name_servers.hpp>
#include <rmq/detail/remoting_transport/parts.hpp>
#include <rmq/detail/remoting_transport/pop_waits.hpp>
#include <rmq/detail/remoting_transport/route_cache.hpp>

namespace rmq::detail {

/// The shared state of every copy of one RemotingTransport (see rmq::RemotingTransport for each operation).
class RemotingTransportState {
public:
    /// Throws rmq::InvalidArgument for an empty or malformed namesrv_addr or non-positive timeouts.
    explicit RemotingTransportState(RemotingConfig config);

    RemotingTransportState(const RemotingTransportState&) = delete;
    RemotingTransportState& operator=(const RemotingTransportState&) = delete;

    ~RemotingTransportState();

    TopicRoute topic_route(const std::string& topic);
    void heartbeat(const HeartbeatData& hb);
    void unregister_client(const std::string& client_id,
                           const std::string& producer_group,
                           const std::string& consumer_group);
    std::vector<std::string> consumer_id_list(const std::string& topic, const std::string& group);
    void set_notification_handler(NotificationHandler handler);

    void set_admin_handler(const std::string& group, AdminHandler handler) {
        broker_requests_.set_admin_handler(group, std::move(handler));
    }

    void set_transaction_check_handler(const std::string& producer_group, TransactionCheckHandler handler) {
        broker_requests_.set_transaction_check_handler(producer_group, std::move(handler));
    }

    void end_transaction(const EndTransactionArgs& args);

    /// Registers (or, with an empty handler, removes) a handler told of route changes (rmq::
    /// HasRouteChangeHandler).
    void set_route_change_handler(const std::string& key, RouteChangeHandler handler);

    void pull(const PullArgs& args, PullCallback callback, PostToCaller post);
    std::optional<std::int64_t> query_consumer_offset(const std::string& group, const MessageQueue& mq);
    void update_consumer_offset(const std::string& group, const MessageQueue& mq, std::int64_t offset);
    std::int64_t min_offset(const MessageQueue& mq);
    std::int64_t max_offset(const MessageQueue& mq);
    std::int64_t search_offset(const MessageQueue& mq, std::int64_t timestamp);
    std::vector<MessageQueue>
    lock_batch(const std::string& group, const std::string& client_id, const std::vector<MessageQueue>& mqs);
    void unlock_batch(const std::string& group,
                      const std::string& client_id,
                      const std::vector<MessageQueue>& mqs);
    SendResult send(const Message& msg, const MessageQueue& mq);
    void send_oneway(const Message& msg, const MessageQueue& mq);
    void send_async(const Message& msg, const MessageQueue& mq, SendCompletion done);
    SendResult send_batch(std::span<const Message> msgs, const MessageQueue& mq);
    void send_batch_async(std::span<const Message> msgs, const MessageQueue& mq, SendCompletion done);
    void send_back(const SendBackArgs& args);
    PopResult pop_message(const PopArgs& args);
    void pop_message(const PopArgs& args, PopCompletion done);

    void interrupt_pops(const std::string& consumer_group) { pop_waits_.interrupt(consumer_group); }

    void resume_pops(const std::string& consumer_group) { pop_waits_.resume(consumer_group); }

    void ack_message(const AckArgs& args);
    void ack_message(const AckArgs& args, AckCompletion done);
    void batch_ack_message(const BatchAckArgs& args);
    void batch_ack_message(const BatchAckArgs& args, AckCompletion done);
    std::string change_invisible_time(const ChangeInvisibleTimeArgs& args);
    std::optional<std::vector<MessageQueueAssignment>> query_assignment(const QueryAssignmentArgs& args);
    void set_message_request_mode(const SetMessageRequestModeArgs& args);

    /// The master address of a broker group from the known routes; rmq::Error if unknown.
    [[nodiscard]] std::string master_address(const std::string& broker_name) const;

    /// Forgets the cached route of `topic` (the next topic_route asks the NameServer).
    void invalidate_route(const std::string& topic) { routes_.erase(topic); }

    /// Refreshes every cached route now (asynchronously).
    void refresh_routes() { name_servers_.refresh_async(); }

    [[nodiscard]] const RemotingConfig& config() const noexcept { return config_; }

    RemotingClient& client() noexcept { return client_; }

private:
    static RemotingConfig validated(RemotingConfig config);
    static ConnectionOptions options(const RemotingConfig& c);

    /// Connect hook (io thread): a broker that sees a new connection must hear the heartbeats again before
    /// anything else (it forgot the client when the old channel closed).
    std::vector<remoting::Command> on_connect(const std::string& addr);

    /// Every poll_name_server_interval: refresh the routes, re-send the heartbeats.
    void schedule_refresh();

    /// The route loop (io thread), one timer every route_loop_millis. It refreshes the routes while the route
    /// watch runs (until route_watch_millis after the last broker connection event: the NameServer learns
    /// of a broker's loss or return within moments of the client, but not necessarily before it, so one look
    /// is not enough) and, while a consumer is registered, every route_check_interval_millis (the route
    /// check: the one way a member learns of a broker it never had a connection to, down when it started,
    /// whose return no connection event reports). A broker seen for the first time is heartbeated
    /// (on_new_brokers), a changed route heartbeated and rebalanced (route_changed).
    void route_loop();

    /// The period of route_loop: the watch's period, or the route check's if shorter.
    [[nodiscard]] std::int64_t route_loop_millis() const noexcept;

    /// Connection event hook (io thread): a broker connection lost or back starts the route watch and
    /// refreshes the routes at once.
    void on_connection_event(const std::string& addr, bool connected);

    /// Heartbeats every broker of `topic`'s route (a broker back in it may have forgotten this client and
    /// this client may have no connection to it that would re-send them), then tells the registered
    /// handlers that the route changed.
    void route_changed(const std::string& topic);

    static constexpr std::int64_t route_watch_period_millis = 1000;
    static constexpr std::int64_t route_watch_millis = 60000;

    const RemotingConfig config_;
    RemotingClient client_;
    RemotingCaller caller_;
    RouteCache routes_;
    HeartbeatRegistry heartbeats_;
    NameServers name_servers_;
    UniqueIdGenerator ids_;
    BrokerRequests broker_requests_;
    TransportParts parts_;
    PopWaits pop_waits_;
    std::atomic<bool> stopping_{false};
    std::mutex route_handlers_mutex_;
    std::map<std::string, RouteChangeHandler> route_handlers_;
    // io thread only: until when the route watch runs, when the route loop last refreshed (steady ms)
    std::int64_t watch_until_millis_ = 0;
    std::int64_t last_route_read_millis_ = 0;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/state.ipp>
#endif
