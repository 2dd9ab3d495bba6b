#pragma once

/// @file rmq.hpp
/// The umbrella header: everything rmq offers except the TCP transport to a real cluster (model, policies,
/// consumer, producer, the embedded broker), so a program on the embedded broker parses no Boost.Asio. For
/// rmq::RemotingTransport and the wire format include <rmq/remoting.hpp>, which includes this one. Each is
/// the root of a generated single header (single_include/rmq/).

#include <rmq/admin.hpp>
#include <rmq/allocate/averagely.hpp>
#include <rmq/allocate/averagely_by_circle.hpp>
#include <rmq/allocate/by_broker.hpp>
#include <rmq/allocate/by_config.hpp>
#include <rmq/allocate/by_machine_room.hpp>
#include <rmq/allocate/consistent_hash.hpp>
#include <rmq/allocate/machine_room_nearby.hpp>
#include <rmq/allocate/sticky.hpp>
#include <rmq/assignment.hpp>
#include <rmq/clock.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/concepts/order_policy.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/config.hpp>
#include <rmq/consume_context.hpp>
#include <rmq/consume_hooks.hpp>
#include <rmq/consumer.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/error.hpp>
#include <rmq/fwd.hpp>
#include <rmq/impl/producer_retries.hpp>
#include <rmq/impl/producer_routes.hpp>
#include <rmq/impl/producer_send_async.hpp>
#include <rmq/impl/producer_trace.hpp>
#include <rmq/lite_pull_config.hpp>
#include <rmq/lite_pull_consumer.hpp>
#include <rmq/log.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/message_selector.hpp>
#include <rmq/metrics.hpp>
#include <rmq/namespace.hpp>
#include <rmq/offset_store/local_file.hpp>
#include <rmq/offset_store/memory.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/order/concurrently.hpp>
#include <rmq/order/consume_queue.hpp>
#include <rmq/order/host.hpp>
#include <rmq/order/key_orderly.hpp>
#include <rmq/order/message_batch.hpp>
#include <rmq/order/orderly.hpp>
#include <rmq/order/orderly_common.hpp>
#include <rmq/pop.hpp>
#include <rmq/pop_dead_letter.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/producer.hpp>
#include <rmq/producer_config.hpp>
#include <rmq/properties.hpp>
#include <rmq/protocol.hpp>
#include <rmq/sim/options.hpp>
#include <rmq/sim/simulation.hpp>
#include <rmq/sim/trace.hpp>
#include <rmq/simple_consumer.hpp>
#include <rmq/simple_consumer_config.hpp>
#include <rmq/stats.hpp>
#include <rmq/subscription.hpp>
#include <rmq/tls_config.hpp>
#include <rmq/topic.hpp>
#include <rmq/trace.hpp>
#include <rmq/transaction_producer.hpp>
#include <rmq/transport/broker_config.hpp>
#include <rmq/transport/in_process.hpp>
#include <rmq/unique_id.hpp>
#include <rmq/version.hpp>
