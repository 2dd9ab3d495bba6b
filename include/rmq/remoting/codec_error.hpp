#pragma once

/// @file remoting/codec_error.hpp
/// rmq::remoting::CodecError: bytes from (or for) the wire that do not follow RocketMQ's remoting format.

#include <rmq/error.hpp>

namespace rmq::remoting {

/// Malformed frame, header, record or body (truncated, bad length, unknown serialize type, frame too
/// large...). The message names the problem and where it was found.
class CodecError : public Error {
public:
    using Error::Error;
};

}  // namespace rmq::remoting
