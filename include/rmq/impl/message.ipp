#pragma once

/// @file impl/message.ipp
/// Definitions of message.hpp.

#include <algorithm>

#include <rmq/message.hpp>

namespace rmq {

RMQ_DECL std::string encode_properties(const Properties& props) {
    std::string out;
    for (const auto& [name, value] : props) {
        out.append(name);
        out.push_back(property::name_value_separator);
        out.append(value);
        out.push_back(property::property_separator);
    }
    if (!out.empty()) {
        out.pop_back();
    }
    return out;
}

RMQ_DECL Properties decode_properties(std::string_view text) {
    Properties::container_type out;
    // Room for every entry of a usual message at once (capped: a damaged string of separators is not a
    // reason to reserve for thousands).
    out.reserve(std::min<std::size_t>(
        static_cast<std::size_t>(std::count(text.begin(), text.end(), property::property_separator)) + 1,
        64));
    while (!text.empty()) {
        const std::size_t end = text.find(property::property_separator);
        const std::string_view entry = text.substr(0, end);
        if (const std::size_t sep = entry.find(property::name_value_separator);
            sep != std::string_view::npos && sep > 0 && sep + 1 < entry.size()) {
            out.emplace_back(std::string(entry.substr(0, sep)), std::string(entry.substr(sep + 1)));
        }
        if (end == std::string_view::npos) {
            break;
        }
        text.remove_prefix(end + 1);
    }
    return Properties::from_entries(std::move(out));
}

RMQ_DECL Message::Message(std::string topic, std::string_view tags, std::string_view keys, std::string body)
    : topic_(std::move(topic))
    , body_(std::move(body)) {
    if (!tags.empty()) {
        set_property(property::tags, tags);
    }
    if (!keys.empty()) {
        set_property(property::keys, keys);
    }
}

RMQ_DECL std::int32_t Message::delay_time_level() const noexcept {
    const auto v = property_view(property::delay_time_level);
    std::int32_t level = 0;
    for (const char c : v) {
        if (c < '0' || c > '9') {
            return 0;
        }
        level = level * 10 + (c - '0');
    }
    return level;
}

}  // namespace rmq
