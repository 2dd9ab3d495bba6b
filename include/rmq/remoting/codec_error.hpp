#pragma once

/// @file remoting/codec_error.hpp
/// rmq::remoting::CodecError: bytes from (or for) the wire that do not follow RocketMQ's remoting format.

#include <rmq/error.hpp>

namespace rmq::remoting {

/// The wire format's name for rmq::CodecError (error.hpp, where detail/wire/ can reach it).
using CodecError = rmq::CodecError;

}  // namespace rmq::remoting
