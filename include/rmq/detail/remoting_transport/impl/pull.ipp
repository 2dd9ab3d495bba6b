#pragma once

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <rmq/remoting/headers/fields.hpp>
#include <rmq/remoting/headers/pull.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/remoting_transport/pull.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail::remoting_ops {

/// The status of a pull answer's code, or nullopt for an error code.
inline std::optional<PullStatus> status_of(int code) {
    switch (code) {
    case response_code::success:
        return PullStatus::Found;
    case response_code::pull_not_found:
        return PullStatus::NoNewMsg;
    case response_code::pull_retry_immediately:
        return PullStatus::NoMatchedMsg;
    case response_code::pull_offset_moved:
        return PullStatus::OffsetIllegal;
    default:
        return std::nullopt;
    }
}

/// The found messages of a pull answer, inner batches unwrapped; damaged records are logged and dropped.
inline std::vector<MessageExt> found_messages(const MessageQueue& mq,
                                              const remoting::Command& resp,
                                              const std::optional<std::int64_t>& offset_delta) {
    remoting::MessageDecodeReport report;
    // Room for the properties a consumer stamps on each message (Puller::prepare_found's reserve).
    auto msgs = remoting::decode_messages(
        resp.body_bytes(), &report, {.property_room = property::consumer_stamped_count});
    if (report.damaged_records != 0) {
        log_line(LogLevel::Warn,
                 "pull of {}: {} damaged record(s) dropped: {}",
                 mq,
                 report.damaged_records,
                 report.error);
    }
    if (std::any_of(msgs.begin(), msgs.end(), remoting::is_wrapped_inner_batch)) {
        try {
            msgs = remoting::unwrap_inner_batches(msgs);
        } catch (const remoting::CodecError& e) {
            // As Java: the records are delivered as they came.
            log_line(LogLevel::Warn, "pull of {}: an inner batch could not be unwrapped: {}", mq, e.what());
        }
    }
    if (offset_delta) {
        for (auto& m : msgs) {
            m.set_queue_offset(m.queue_offset() + *offset_delta);
        }
    }
    return msgs;
}

inline std::string what_of(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "pull failed";
    }
}

RMQ_DECL void pull(TransportParts& parts, const PullArgs& args, PullCallback callback, PostToCaller post) {
    const auto [addr, id] =
        parts.routes.pull_address(args.mq.broker_name, parts.routes.suggested_broker(args.mq));
    auto header = remoting::PullMessageRequestHeader::from(args);
    if (id != 0) {
        header.sys_flag &= ~pull_sys_flag::commit_offset;  // a commit on a slave is useless
    }
    if (header.subscription && header.subscription->empty()) {
        header.subscription.reset();
    }
    std::int64_t timeout = parts.config.mq_client_api_timeout;
    if ((args.sys_flag & pull_sys_flag::suspend) != 0) {
        timeout =
            std::max(parts.config.consumer_timeout_millis_when_suspend, args.suspend_timeout_millis + 5000);
    }
    auto shared_cb = std::make_shared<PullCallback>(std::move(callback));
    parts.caller.client().invoke_async(
        addr,
        remoting::make_request(remoting::request_code::pull_message, header),
        timeout,
        [routes = &parts.routes, mq = args.mq, shared_cb, post = std::move(post)](
            std::optional<remoting::Command> resp, const std::exception_ptr& error) {
            if (error) {
                (*shared_cb)(Outcome<PullResult>(response_code::system_error, what_of(error)));
                return;
            }
            if (!post) {
                (*shared_cb)(to_pull_result(*routes, mq, *resp));
                return;
            }
            post([routes, mq, shared_cb, answer = std::make_shared<remoting::Command>(std::move(*resp))] {
                (*shared_cb)(to_pull_result(*routes, mq, *answer));
            });
        });
}

RMQ_DECL Outcome<PullResult>
to_pull_result(RouteCache& routes, const MessageQueue& mq, const remoting::Command& resp) {
    const auto status = status_of(resp.code);
    if (!status) {
        return Outcome<PullResult>(resp.code, resp.remark.value_or(""));
    }
    PullResult r;
    r.status = *status;
    try {
        const auto h = remoting::header_of<remoting::PullMessageResponseHeader>(resp);
        r.next_begin_offset = h.next_begin_offset;
        r.min_offset = h.min_offset;
        r.max_offset = h.max_offset;
        r.suggest_which_broker_id = h.suggest_which_broker_id;
        routes.suggest_broker(mq, h.suggest_which_broker_id);
        if (r.status == PullStatus::Found) {
            r.msg_found_list = found_messages(mq, resp, h.offset_delta);
        }
    } catch (const std::exception& e) {
        return Outcome<PullResult>(response_code::system_error,
                                   fmt::format("pull of {}: undecodable response: {}", mq, e.what()));
    }
    return r;
}

}  // namespace rmq::detail::remoting_ops
