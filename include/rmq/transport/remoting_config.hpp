#pragma once

/// @file transport/remoting_config.hpp
/// rmq::RemotingConfig: how an rmq::RemotingTransport reaches a RocketMQ cluster (see
/// docs/transport/remoting.md).

#include <cstdint>
#include <optional>
#include <string>

#include <rmq/remoting/acl.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/tls_config.hpp>

namespace rmq {

/// ACL credentials every request is signed with (Java's SessionCredentials / AclClientRPCHook):
/// `rmq::AclCredentials{access_key, secret_key}`.
using AclCredentials = remoting::AclCredentials;

/// How a RemotingTransport reaches the cluster. Field names mirror the Java ClientConfig / NettyClientConfig
/// names where one exists.
struct RemotingConfig {
    /// NameServer addresses, `host:port` separated by `;` (Java namesrvAddr). Required.
    std::string namesrv_addr;
    /// Sign every request with these (ACL 1.0 on 4.9.x-5.3.2, authentication on 5.3+).
    std::optional<AclCredentials> credentials{};
    /// Namespace v2 (ClientConfig.namespaceV2, RocketMQ 5.2+): every request carries the ext fields `nsd`
    /// ("true") and `ns` (this namespace), signed with the rest, for a proxy or broker that scopes resources
    /// by them; topic and group names are sent as given (unlike the v1 `namespace_` of the consumer and
    /// producer configurations, which prefixes them). Empty: no fields.
    std::string namespace_v2{};
    /// TCP connect timeout (NettyClientConfig.connectTimeoutMillis).
    std::int64_t connect_timeout_millis = 3000;
    /// Timeout of every synchronous request (ClientConfig.mqClientApiTimeout).
    std::int64_t mq_client_api_timeout = 3000;
    /// Timeout of a SEND_MESSAGE_V2 request (DefaultMQProducer.sendMsgTimeout).
    std::int64_t send_msg_timeout = 3000;
    /// Oneway requests queued on the client and not yet written
    /// (NettyClientConfig.clientOnewaySemaphoreValue): a oneway send past it waits for a write to finish, up
    /// to its timeout, then throws rmq::Timeout, so a caller sending faster than the network takes the frames
    /// does not queue without bound.
    std::int32_t client_oneway_semaphore_value = 65535;
    /// Read timeout of a long-polling pull (DefaultMQPushConsumer consumerTimeoutMillisWhenSuspend); always
    /// kept at least 5 s above the pull's suspend time.
    std::int64_t consumer_timeout_millis_when_suspend = 30000;
    /// Route refresh and transport-level heartbeat period (ClientConfig.pollNameServerInterval).
    std::int64_t poll_name_server_interval = 30000;
    /// While a consumer is registered, the routes are also re-read this often (0: never): a broker the
    /// NameServer lists again (back from a restart while this client never had a connection to it, e.g. it
    /// started during the outage) is heartbeated and rebalanced at once, not at the next
    /// poll_name_server_interval while the other members already count it. No Java equivalent.
    std::int64_t route_check_interval_millis = 1000;
    /// Bodies of at least this many bytes are zlib-compressed by send() (compressMsgBodyOverHowmuch).
    std::int32_t compress_msg_body_over_howmuch = 4096;
    /// zlib level (rocketmq.message.compressLevel).
    int compress_level = 5;
    /// SYSTEM_BUSY answers to synchronous requests are retried this many times, with doubling back-off from
    /// 50 ms (capped at 1 s); pulls report them to the consumer, which backs off itself.
    int system_busy_retry_times = 3;
    /// Header format of the requests rmq sends (responses are decoded in either format).
    remoting::SerializeType serialize_type = remoting::SerializeType::Json;
    /// No effect: rmq connects on demand: a request to an address without a connection starts a
    /// connect (or waits for the one in flight), whatever an earlier connect's outcome, as Java's invoke
    /// does. Kept so existing configurations compile.
    std::int64_t reconnect_backoff_min_millis = 100;
    std::int64_t reconnect_backoff_max_millis = 5000;
    /// TLS to every NameServer and broker (off by default).
    TlsConfig tls{};
};

}  // namespace rmq
