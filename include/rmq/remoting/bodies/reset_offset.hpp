#pragma once

/// @file remoting/bodies/reset_offset.hpp
/// The RESET_CONSUMER_CLIENT_OFFSET body (Java's ResetOffsetBody) in both forms a broker writes.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

namespace rmq::remoting {

/// The two forms of ResetOffsetBody: Java's default writes `Map<MessageQueue, Long>` with object keys (not
/// JSON:
/// `{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:123}}`); the "ForC" form, chosen by the broker
/// when the admin tool that triggered the reset spoke CPP, is a list of `{brokerName, offset, queueId,
/// topic}`.
enum class ResetOffsetForm { ObjectKeys, ForC };

/// Parses a RESET_CONSUMER_CLIENT_OFFSET body in either form: (queue, offset) pairs.
std::vector<std::pair<MessageQueue, std::int64_t>> decode_reset_offset_body(std::string_view json);

/// Writes a ResetOffsetBody the way a Java broker does (ObjectKeys form: entries in the given order).
std::string encode_reset_offset_body(std::span<const std::pair<MessageQueue, std::int64_t>> offsets,
                                     ResetOffsetForm form = ResetOffsetForm::ObjectKeys);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/bodies/impl/reset_offset.ipp>
#endif
