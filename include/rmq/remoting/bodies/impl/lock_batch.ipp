#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/remoting/bodies/lock_batch.hpp>
#include <rmq/remoting/codec_error.hpp>

#include <rmq/detail/wire/body_json.hpp>
#include <rmq/detail/wire/java_hash.hpp>
#include <rmq/detail/wire/json.hpp>

namespace rmq::remoting {

RMQ_DECL std::string encode_lock_batch_request(const LockBatchRequestBody& body) {
    std::string out = "{";
    bool first = true;
    detail::put_string(out, "clientId", body.client_id, first);
    detail::put_string(out, "consumerGroup", body.consumer_group, first);
    detail::put_key(out, "mqSet", first);
    detail::append_mq_set(out, body.mq_set);
    if (body.only_this_broker) {
        detail::put_bool(out, "onlyThisBroker", *body.only_this_broker, first);
    }
    out.push_back('}');
    return out;
}

RMQ_DECL LockBatchRequestBody decode_lock_batch_request(std::string_view json) {
    constexpr std::string_view what = "LockBatchRequestBody";
    const auto j = detail::parse_object(json, what);
    LockBatchRequestBody out;
    out.consumer_group = detail::get_string(j, "consumerGroup", what);
    out.client_id = detail::get_string(j, "clientId", what);
    if (detail::member(j, "onlyThisBroker") != nullptr) {
        out.only_this_broker = detail::get_bool(j, "onlyThisBroker", what);
    }
    out.mq_set = detail::parse_mq_set(j, "mqSet", what);
    return out;
}

RMQ_DECL std::string encode_lock_batch_response(std::span<const MessageQueue> locked) {
    std::string out = "{";
    bool first = true;
    detail::put_key(out, "lockOKMQSet", first);
    detail::append_mq_set(out, std::vector<MessageQueue>(locked.begin(), locked.end()));
    out.push_back('}');
    return out;
}

RMQ_DECL std::vector<MessageQueue> decode_lock_batch_response(std::string_view json) {
    constexpr std::string_view what = "LockBatchResponseBody";
    return detail::parse_mq_set(detail::parse_object(json, what), "lockOKMQSet", what);
}

}  // namespace rmq::remoting
