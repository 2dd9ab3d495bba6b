#pragma once

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include <rmq/remoting/bodies/batch_ack.hpp>
#include <rmq/remoting/headers/pop.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/remoting_transport/pop.hpp>
#include <rmq/detail/remoting_transport/pop_waits.hpp>

namespace rmq::detail::remoting_ops {

/// What an interrupted POP returns: as a long poll that found nothing.
inline PopResult nothing_found() {
    PopResult r;
    r.status = PopStatus::PollingNotFound;
    return r;
}

RMQ_DECL PopResult pop_message(TransportParts& parts, PopWaits& waits, const PopArgs& args) {
    if (parts.caller.client().on_io_thread()) {
        throw IllegalState("blocking POP_MESSAGE on the remoting io thread");
    }
    const auto wait = waits.enter(args.consumer_group);
    if (!wait) {
        return nothing_found();  // interrupt_pops: nothing is sent
    }
    const auto born = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
    const auto header = remoting::PopMessageRequestHeader::from(args, born);
    try {
        parts.caller.client().invoke_async(
            parts.routes.require_master(args.broker_name),
            remoting::make_request(remoting::request_code::pop_message, header),
            args.poll_time_millis + parts.config.mq_client_api_timeout,
            [wait](std::optional<remoting::Command> answer, const std::exception_ptr& error) {
                PopWaits::complete(*wait, std::move(answer), error);
            });
    } catch (...) {
        waits.leave(args.consumer_group, wait);
        throw;
    }
    const bool answered = PopWaits::await(*wait);
    waits.leave(args.consumer_group, wait);
    if (!answered) {
        return nothing_found();  // the broker's later answer is dropped
    }
    return remoting::to_pop_result(PopWaits::answer_of(*wait), args.broker_name, args.topic, args.order);
}

RMQ_DECL void pop_message(TransportParts& parts, PopWaits& waits, const PopArgs& args, PopCompletion done) {
    if (waits.interrupted(args.consumer_group)) {
        done(nothing_found(), nullptr);
        return;
    }
    const auto born = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
    const auto header = remoting::PopMessageRequestHeader::from(args, born);
    auto shared = std::make_shared<PopCompletion>(std::move(done));
    try {
        parts.caller.client().invoke_async(
            parts.routes.require_master(args.broker_name),
            remoting::make_request(remoting::request_code::pop_message, header),
            args.poll_time_millis + parts.config.mq_client_api_timeout,
            [shared, broker = args.broker_name, topic = args.topic, order = args.order](
                std::optional<remoting::Command> answer, const std::exception_ptr& error) {
                PopResult result;
                std::exception_ptr outcome = error;
                if (!outcome) {
                    try {
                        result = remoting::to_pop_result(*answer, broker, topic, order);
                    } catch (...) {
                        outcome = std::current_exception();
                    }
                }
                (*shared)(std::move(result), outcome);
            });
    } catch (...) {
        (*shared)(PopResult{}, std::current_exception());
    }
}

RMQ_DECL void ack_message(TransportParts& parts, const AckArgs& args) {
    const auto header = remoting::AckMessageRequestHeader::from(args);
    const auto resp = parts.caller.call(parts.routes.require_master(*header.bname),
                                        remoting::make_request(remoting::request_code::ack_message, header));
    remoting::check_pop_answer(resp, fmt::format("ACK_MESSAGE of {} offset {}", header.topic, header.offset));
}

RMQ_DECL void ack_message(TransportParts& parts, const AckArgs& args, AckCompletion done) {
    const auto header = remoting::AckMessageRequestHeader::from(args);
    parts.caller.client().invoke_async(
        parts.routes.require_master(*header.bname),
        remoting::make_request(remoting::request_code::ack_message, header),
        parts.config.mq_client_api_timeout,
        [done = std::move(done), topic = header.topic, offset = header.offset](
            std::optional<remoting::Command> resp, const std::exception_ptr& error) {
            std::exception_ptr outcome = error;
            if (!outcome) {
                try {
                    remoting::check_pop_answer(*resp,
                                               fmt::format("ACK_MESSAGE of {} offset {}", topic, offset));
                } catch (...) {
                    outcome = std::current_exception();
                }
            }
            done(outcome);
        });
}

/// The BATCH_ACK_MESSAGE of `args`: Java's createRequestCommand(BATCH_ACK_MESSAGE, null), ext fields absent.
inline remoting::Command batch_ack_request(const BatchAckRequest& body) {
    remoting::Command cmd;
    cmd.code = remoting::request_code::batch_ack_message;
    cmd.body = remoting::encode_batch_ack_request(body);
    return cmd;
}

inline std::string batch_ack_what(const BatchAckRequest& body, std::size_t receipts) {
    return fmt::format(
        "BATCH_ACK_MESSAGE of {} messages at broker {}", receipts, body.broker_name.value_or(""));
}

RMQ_DECL void batch_ack_message(TransportParts& parts, const BatchAckArgs& args) {
    const auto body = BatchAckRequest::of(args);
    const auto resp =
        parts.caller.call(parts.routes.require_master(*body.broker_name), batch_ack_request(body));
    remoting::check_pop_answer(resp, batch_ack_what(body, args.acks.size()));
}

RMQ_DECL void batch_ack_message(TransportParts& parts, const BatchAckArgs& args, AckCompletion done) {
    const auto body = BatchAckRequest::of(args);
    parts.caller.client().invoke_async(
        parts.routes.require_master(*body.broker_name),
        batch_ack_request(body),
        parts.config.mq_client_api_timeout,
        [done = std::move(done), what = batch_ack_what(body, args.acks.size())](
            std::optional<remoting::Command> resp, const std::exception_ptr& error) {
            std::exception_ptr outcome = error;
            if (!outcome) {
                try {
                    remoting::check_pop_answer(*resp, what);
                } catch (...) {
                    outcome = std::current_exception();
                }
            }
            done(outcome);
        });
}

RMQ_DECL std::string change_invisible_time(TransportParts& parts, const ChangeInvisibleTimeArgs& args) {
    const auto header = remoting::ChangeInvisibleTimeRequestHeader::from(args);
    const auto resp = parts.caller.call(
        parts.routes.require_master(*header.bname),
        remoting::make_request(remoting::request_code::change_message_invisibletime, header));
    return remoting::changed_receipt(resp, header);
}

}  // namespace rmq::detail::remoting_ops
