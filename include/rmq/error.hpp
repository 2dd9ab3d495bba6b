#pragma once

/// @file error.hpp
/// rmq's exception hierarchy: every error rmq throws derives from rmq::Error.

#include <stdexcept>
#include <string>

namespace rmq {

/// Base of every exception rmq throws.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// An argument (topic, group, expression, offset, configuration value...) was rejected before anything
/// changed.
class InvalidArgument : public Error {
public:
    using Error::Error;
};

/// An operation was called in the wrong lifecycle state (start twice, use after shutdown...).
class IllegalState : public Error {
public:
    using Error::Error;
};

/// A broker (embedded or remote) answered a request with an error response code.
class BrokerError : public Error {
public:
    /// @param code RocketMQ response code (see rmq::ResponseCode), @param remark the broker's text.
    BrokerError(int code, const std::string& remark)
        : Error(remark)
        , code_(code) {}

    /// RocketMQ response code of the failed request.
    [[nodiscard]] int code() const noexcept { return code_; }

private:
    int code_;
};

/// A broker answered NO_PERMISSION (response code 16), or, a RocketMQ 4.x broker, SYSTEM_ERROR (1) with its
/// ACL's AclException: it refused the request's credentials (unknown access key, wrong secret key: the
/// signature did not verify) or their permissions (no ACL allows the action on the topic or group), or the
/// topic/broker is not writable. code() is the code the broker sent. When the request was signed the message
/// names the access key; it never contains the secret key or the signature.
class AccessDenied : public BrokerError {
public:
    using BrokerError::BrokerError;
};

/// A TLS connection could not be set up: certificate files unreadable, the handshake failed, or the peer's
/// certificate did not verify (the message names the peer and OpenSSL's reason).
class TlsError : public Error {
public:
    using Error::Error;
};

/// Malformed frame, header, record or body of RocketMQ's remoting format (truncated, bad length, unknown
/// serialize type, frame too large...). The message names the problem and where it was found. Public as
/// rmq::remoting::CodecError (remoting/codec_error.hpp); defined here, with the other errors, because the
/// internals below the wire format (detail/wire/) throw it and must not include the layer above them.
class CodecError : public Error {
public:
    using Error::Error;
};

/// A request got no answer in time.
class Timeout : public Error {
public:
    using Error::Error;
};

}  // namespace rmq
