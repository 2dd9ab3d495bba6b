#pragma once

/// @file detail/remoting_transport/pull.hpp
/// PULL_MESSAGE: the asynchronous long-polling pull and the decoding of its answer.

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/remoting/command.hpp>

#include <rmq/detail/remoting_transport/parts.hpp>

namespace rmq::detail::remoting_ops {

/// Sends the pull to the broker id the last answer suggested for the queue (the commit bit is cleared when
/// that is a slave); `callback` runs on the io thread.
/// With `post`, the answer is decoded and the callback run in a task given to `post`; without, on the io
/// thread.
void pull(TransportParts& parts, const PullArgs& args, PullCallback callback, PostToCaller post);

/// A PULL_MESSAGE answer as a PullResult (messages decoded, offset delta applied); other codes as the error
/// outcome. Records the broker id the answer suggests.
Outcome<PullResult> to_pull_result(RouteCache& routes, const MessageQueue& mq, const remoting::Command& resp);

}  // namespace rmq::detail::remoting_ops

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/remoting_transport/impl/pull.ipp>
#endif
