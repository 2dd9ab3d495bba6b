#pragma once

/// @file remoting/bodies/consumer_list.hpp
/// The GET_CONSUMER_LIST_BY_GROUP response body (Java's GetConsumerListByGroupResponseBody).

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>

namespace rmq::remoting {

/// GET_CONSUMER_LIST_BY_GROUP response body (GetConsumerListByGroupResponseBody).
std::string encode_consumer_list(std::span<const std::string> consumer_ids);

/// Parses a GET_CONSUMER_LIST_BY_GROUP response body.
std::vector<std::string> decode_consumer_list(std::string_view json);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/bodies/impl/consumer_list.ipp>
#endif
