#pragma once

#include <string_view>

#include <fmt/format.h>

#include <rmq/protocol.hpp>
#include <rmq/remoting/headers/fields.hpp>
#include <rmq/remoting/headers/offsets.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/remoting_transport/offsets.hpp>

namespace rmq::detail::remoting_ops {

/// Sends an offset request to the queue's master; the offset of its OffsetResponseHeader.
inline std::int64_t offset_call(TransportParts& parts,
                                const MessageQueue& mq,
                                const remoting::Command& req,
                                std::string_view what) {
    const auto resp = parts.caller.call(parts.routes.require_master(mq.broker_name), req);
    RemotingCaller::check_success(resp, fmt::format("{} of {}", what, mq));
    return remoting::header_of<remoting::OffsetResponseHeader>(resp).offset.value_or(0);
}

/// A GET_MIN_OFFSET / GET_MAX_OFFSET header for `mq`.
template <class Header>
Header queue_header(const MessageQueue& mq) {
    Header h;
    h.topic = mq.topic;
    h.queue_id = mq.queue_id;
    h.bname = mq.broker_name;
    return h;
}

RMQ_DECL std::optional<std::int64_t>
query_consumer_offset(TransportParts& parts, const std::string& group, const MessageQueue& mq) {
    remoting::QueryConsumerOffsetRequestHeader h;
    h.consumer_group = group;
    h.topic = mq.topic;
    h.queue_id = mq.queue_id;
    h.bname = mq.broker_name;
    const auto resp =
        parts.caller.call(parts.routes.require_master(mq.broker_name),
                          remoting::make_request(remoting::request_code::query_consumer_offset, h));
    if (resp.code == response_code::query_not_found) {
        return std::nullopt;
    }
    RemotingCaller::check_success(resp, fmt::format("query consumer offset of {} for {}", mq, group));
    return remoting::header_of<remoting::OffsetResponseHeader>(resp).offset.value_or(0);
}

RMQ_DECL void update_consumer_offset(TransportParts& parts,
                                     const std::string& group,
                                     const MessageQueue& mq,
                                     std::int64_t offset) {
    remoting::UpdateConsumerOffsetRequestHeader h;
    h.consumer_group = group;
    h.topic = mq.topic;
    h.queue_id = mq.queue_id;
    h.commit_offset = offset;
    h.bname = mq.broker_name;
    const auto resp =
        parts.caller.call(parts.routes.require_master(mq.broker_name),
                          remoting::make_request(remoting::request_code::update_consumer_offset, h));
    RemotingCaller::check_success(resp, fmt::format("update consumer offset of {} for {}", mq, group));
}

RMQ_DECL std::int64_t min_offset(TransportParts& parts, const MessageQueue& mq) {
    const auto h = queue_header<remoting::GetMinOffsetRequestHeader>(mq);
    return offset_call(
        parts, mq, remoting::make_request(remoting::request_code::get_min_offset, h), "min offset");
}

RMQ_DECL std::int64_t max_offset(TransportParts& parts, const MessageQueue& mq) {
    const auto h = queue_header<remoting::GetMaxOffsetRequestHeader>(mq);
    return offset_call(
        parts, mq, remoting::make_request(remoting::request_code::get_max_offset, h), "max offset");
}

RMQ_DECL std::int64_t search_offset(TransportParts& parts, const MessageQueue& mq, std::int64_t timestamp) {
    remoting::SearchOffsetRequestHeader h;
    h.topic = mq.topic;
    h.queue_id = mq.queue_id;
    h.timestamp = timestamp;
    h.bname = mq.broker_name;
    return offset_call(parts,
                       mq,
                       remoting::make_request(remoting::request_code::search_offset_by_timestamp, h),
                       "search offset");
}

}  // namespace rmq::detail::remoting_ops
