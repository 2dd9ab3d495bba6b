#pragma once

/// @file remoting/bodies/batch_ack.hpp
/// The BATCH_ACK_MESSAGE body (Java's BatchAckMessageRequestBody of BatchAcks): fastjson with BatchAck's
/// short @JSONField names, each bit set written by BitSetSerializerDeserializer (BitSet.toByteArray() in
/// base64).

#include <string>
#include <string_view>

#include <rmq/config.hpp>
#include <rmq/pop.hpp>

namespace rmq::remoting {

/// BatchAckMessageRequestBody.encode() of `body`.
std::string encode_batch_ack_request(const BatchAckRequest& body);

/// Parses a BATCH_ACK_MESSAGE body (short or long field names, as fastjson reads them). Throws CodecError.
BatchAckRequest decode_batch_ack_request(std::string_view json);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/bodies/impl/batch_ack.ipp>
#endif
