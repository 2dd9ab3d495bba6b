#pragma once

/// @file detail/wire/body_json.hpp
/// Field readers and writers the JSON command bodies share: lenient reads of fastjson output through
/// nlohmann-json, and writers that put keys and values exactly where fastjson does.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/wire/json.hpp>

namespace rmq::remoting::detail {

using Json = nlohmann::ordered_json;

const Json* member(const Json& j, std::string_view key);

std::string get_string(const Json& j, std::string_view key, std::string_view what);

template <class Int>
Int get_int(const Json& j, std::string_view key, std::string_view what) {
    const Json* v = member(j, key);
    if (v == nullptr) {
        return 0;
    }
    if (v->is_number_integer()) {
        return v->get<Int>();
    }
    if (v->is_string()) {
        try {
            return static_cast<Int>(std::stoll(v->get<std::string>()));
        } catch (const std::exception&) {
        }
    }
    throw CodecError(fmt::format("{}: {} is not an integer: {}", what, key, rmq::detail::describe_json(*v)));
}

bool get_bool(const Json& j, std::string_view key, std::string_view what);

const Json* get_array(const Json& j, std::string_view key, std::string_view what);

Json parse_object(std::string_view text, std::string_view what);

void put_key(std::string& out, std::string_view key, bool& first);

void put_string(std::string& out,
                std::string_view key,
                std::string_view value,
                bool& first,
                rmq::detail::JsonEscape esc = rmq::detail::JsonEscape::Default);

template <class Int>
void put_int(std::string& out, std::string_view key, Int value, bool& first) {
    put_key(out, key, first);
    out.append(fmt::format("{}", value));
}

void put_bool(std::string& out, std::string_view key, bool value, bool& first);

void append_message_queue(std::string& out, const MessageQueue& mq);

MessageQueue parse_message_queue(const Json& j, std::string_view what);

/// A Java HashSet<MessageQueue> as fastjson writes it: `[mq,...]` in Java's iteration order.
void append_mq_set(std::string& out, std::vector<MessageQueue> mqs);

std::vector<MessageQueue> parse_mq_set(const Json& j, std::string_view key, std::string_view what);

std::vector<std::string> parse_string_list(const Json& j, std::string_view key, std::string_view what);

void append_string_list(std::string& out,
                        const std::vector<std::string>& items,
                        rmq::detail::JsonEscape esc = rmq::detail::JsonEscape::Default);

}  // namespace rmq::remoting::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/wire/impl/body_json.ipp>
#endif
