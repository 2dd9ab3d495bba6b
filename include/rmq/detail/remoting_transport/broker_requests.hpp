#pragma once

/// @file detail/remoting_transport/broker_requests.hpp
/// The requests a broker sends the client: NOTIFY_CONSUMER_IDS_CHANGED (40), the admin requests
/// RESET_CONSUMER_CLIENT_OFFSET (220), GET_CONSUMER_STATUS_FROM_CLIENT (221), GET_CONSUMER_RUNNING_INFO (307)
/// and CONSUME_MESSAGE_DIRECTLY (309), which reach a consumer through its rmq::AdminHandler, and
/// CHECK_TRANSACTION_STATE (39), which reaches the producer of the half message's group through its
/// rmq::TransactionCheckHandler; everything else is answered REQUEST_CODE_NOT_SUPPORTED by the connection.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <rmq/admin.hpp>
#include <rmq/config.hpp>
#include <rmq/protocol.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/transport/remoting_config.hpp>

#include <rmq/detail/net/options.hpp>
#include <rmq/detail/remoting_transport/heartbeat_registry.hpp>

namespace rmq::detail {

/// Answers broker-initiated requests (on the io thread). Thread-safe.
class BrokerRequests {
public:
    BrokerRequests(const RemotingConfig& config,
                   const HeartbeatRegistry& heartbeats,
                   std::int64_t start_millis)
        : config_(config)
        , heartbeats_(heartbeats)
        , start_millis_(start_millis) {}

    /// Where NOTIFY_CONSUMER_IDS_CHANGED goes.
    void set_notification_handler(NotificationHandler handler);

    /// The admin callbacks of a consumer of `group` (an empty handler removes them).
    void set_admin_handler(const std::string& group, AdminHandler handler);

    /// Where CHECK_TRANSACTION_STATE for half messages of `producer_group` goes (an empty handler removes
    /// it).
    void set_transaction_check_handler(const std::string& producer_group, TransactionCheckHandler handler);

    /// The answer to `req` (CONSUME_MESSAGE_DIRECTLY: later, through `respond`), or none for "not supported".
    RequestReply on_request(const std::string& addr, const remoting::Command& req, Responder respond);

    /// ConsumerRunningInfo JSON with what the transport knows: subscriptions and client properties.
    std::optional<std::string> running_info(const std::string& group) const;

private:
    remoting::Command notify_consumer_ids_changed(const remoting::Command& req);
    remoting::Command consumer_running_info(const remoting::Command& req) const;
    remoting::Command reset_offset(const remoting::Command& req) const;
    remoting::Command consumer_status(const remoting::Command& req) const;
    RequestReply consume_directly(const remoting::Command& req, Responder respond) const;
    [[nodiscard]] AdminHandler admin_handler(const std::string& group) const;
    /// ClientRemotingProcessor.checkTransactionState: to the handler of the message's PGROUP (oneway).
    remoting::Command check_transaction_state(const std::string& addr, const remoting::Command& req) const;

    const RemotingConfig& config_;
    const HeartbeatRegistry& heartbeats_;
    const std::int64_t start_millis_;
    mutable std::mutex mutex_;
    NotificationHandler handler_;
    std::map<std::string, AdminHandler> admin_;
    std::map<std::string, TransactionCheckHandler> transaction_checks_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/broker_requests.ipp>
#endif
