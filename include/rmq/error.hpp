#pragma once

/// @file error.hpp
/// rmq's exception hierarchy: every error rmq throws derives from rmq::Error.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

/// A message or batch is larger than the producer's max_message_size (Java's MQClientException
/// MESSAGE_ILLEGAL "the message body size over max value"); nothing was sent. For a batch, size() is the
/// encoded SEND_BATCH_MESSAGE body (MessageDecoder.encodeMessages), which is what the limit applies to.
class MessageTooLarge : public InvalidArgument {
public:
    MessageTooLarge(const std::string& what, std::size_t size, std::size_t limit)
        : InvalidArgument(what)
        , size_(size)
        , limit_(limit) {}

    /// Bytes of the body (or encoded batch).
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

    /// The limit it exceeded.
    [[nodiscard]] std::size_t limit() const noexcept { return limit_; }

private:
    std::size_t size_;
    std::size_t limit_;
};

/// A batch Java's MessageBatch.generateFromList refuses: empty, messages of different topics, a message with
/// a delay level or a timer, a retry topic, or messages that differ in WAIT. Nothing was sent.
class InvalidBatch : public InvalidArgument {
public:
    using InvalidArgument::InvalidArgument;
};

/// A broker refused a timer message (TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS): the delay is
/// beyond its timerMaxDelaySec, the value is not a number, or its timer wheel is disabled. code() is the
/// broker's (MESSAGE_ILLEGAL, 13); nothing was stored.
class TimerRejected : public BrokerError {
public:
    using BrokerError::BrokerError;
};

/// The broker lacks a feature the request needs (a RocketMQ 4.x broker and timer messages: it would store
/// the message and deliver it at once). Checked before sending; nothing was sent. broker_version() is the
/// MQVersion code the broker reported (407 = 4.9.7).
class UnsupportedByBroker : public Error {
public:
    UnsupportedByBroker(const std::string& what, std::int32_t broker_version)
        : Error(what)
        , broker_version_(broker_version) {}

    [[nodiscard]] std::int32_t broker_version() const noexcept { return broker_version_; }

private:
    std::int32_t broker_version_;
};

/// A broker does not serve 5.x POP consumption (POP_MESSAGE, ACK_MESSAGE, CHANGE_MESSAGE_INVISIBLETIME): a
/// RocketMQ 4.x broker answers REQUEST_CODE_NOT_SUPPORTED (code(), 3). Use a push consumer with such a
/// broker.
class PopUnsupported : public BrokerError {
public:
    using BrokerError::BrokerError;
};

/// An ack of several messages (SimpleConsumer::ack(span)) acked some of them, not all: failed() are the
/// indices (into the span, ascending) of those not acked, which come back after their invisible time;
/// errors() what each failed request threw. (When none was acked, the first failure itself is thrown.)
class PartialAckError : public Error {
public:
    PartialAckError(const std::string& what,
                    std::vector<std::size_t> failed,
                    std::vector<std::exception_ptr> errors)
        : Error(what)
        , failed_(std::move(failed))
        , errors_(std::move(errors)) {}

    [[nodiscard]] const std::vector<std::size_t>& failed() const noexcept { return failed_; }

    [[nodiscard]] const std::vector<std::exception_ptr>& errors() const noexcept { return errors_; }

private:
    std::vector<std::size_t> failed_;
    std::vector<std::exception_ptr> errors_;
};

/// An asynchronous send found no free in-flight slot (ProducerConfig::back_pressure_for_async_send_num)
/// within send_msg_timeout, or at once on a thread of the producer's own (Java's
/// RemotingTooMuchRequestException); nothing was sent.
class TooManyRequests : public Error {
public:
    using Error::Error;
};

}  // namespace rmq
