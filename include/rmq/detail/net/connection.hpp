#pragma once

/// @file detail/net/connection.hpp
/// RemotingConnection, one TCP connection to a NameServer or Broker. Only the client uses it (through its
/// pimpl), so this header only names the class: its definition is in impl/connection.ipp, with Asio.

#include <rmq/config.hpp>

#include <rmq/detail/net/options.hpp>

namespace rmq::detail {

class RemotingConnection;

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/net/impl/connection.ipp>
#endif
