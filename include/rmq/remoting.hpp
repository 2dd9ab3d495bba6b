#pragma once

/// @file remoting.hpp
/// The umbrella header for a real cluster: <rmq/rmq.hpp> plus rmq::RemotingTransport (RocketMQ's TCP protocol
/// over Boost.Asio), the wire format (rmq::remoting: commands, headers, bodies, the message codec) and
/// rmq::MetricsHttpServer (a /metrics endpoint, also on Asio). It is the root of the generated single header
/// single_include/rmq/remoting.hpp, which includes its sibling rmq.hpp.

#include <rmq/metrics_http.hpp>
#include <rmq/remoting/acl.hpp>
#include <rmq/remoting/bodies.hpp>
#include <rmq/remoting/bodies/assignment.hpp>
#include <rmq/remoting/bodies/batch_ack.hpp>
#include <rmq/remoting/bodies/consumer_list.hpp>
#include <rmq/remoting/bodies/heartbeat_data.hpp>
#include <rmq/remoting/bodies/lock_batch.hpp>
#include <rmq/remoting/bodies/reset_offset.hpp>
#include <rmq/remoting/bodies/topic_route_data.hpp>
#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/remoting/compression.hpp>
#include <rmq/remoting/headers.hpp>
#include <rmq/remoting/headers/admin.hpp>
#include <rmq/remoting/headers/fields.hpp>
#include <rmq/remoting/headers/membership.hpp>
#include <rmq/remoting/headers/offsets.hpp>
#include <rmq/remoting/headers/pop.hpp>
#include <rmq/remoting/headers/pull.hpp>
#include <rmq/remoting/headers/route.hpp>
#include <rmq/remoting/headers/send.hpp>
#include <rmq/remoting/headers/send_back.hpp>
#include <rmq/remoting/headers/transaction.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/rmq.hpp>
#include <rmq/transport/remoting.hpp>
#include <rmq/transport/remoting_config.hpp>
