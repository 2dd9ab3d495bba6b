#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/remoting/bodies/consumer_list.hpp>
#include <rmq/remoting/codec_error.hpp>

#include <rmq/detail/wire/body_json.hpp>
#include <rmq/detail/wire/java_hash.hpp>
#include <rmq/detail/wire/json.hpp>

namespace rmq::remoting {

RMQ_DECL std::string encode_consumer_list(std::span<const std::string> consumer_ids) {
    std::string out = "{";
    bool first = true;
    detail::put_key(out, "consumerIdList", first);
    detail::append_string_list(out, std::vector<std::string>(consumer_ids.begin(), consumer_ids.end()));
    out.push_back('}');
    return out;
}

RMQ_DECL std::vector<std::string> decode_consumer_list(std::string_view json) {
    constexpr std::string_view what = "GetConsumerListByGroupResponseBody";
    return detail::parse_string_list(detail::parse_object(json, what), "consumerIdList", what);
}

}  // namespace rmq::remoting
