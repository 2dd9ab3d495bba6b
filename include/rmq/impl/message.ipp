#pragma once

/// @file impl/message.ipp
/// Definitions of message.hpp.

#include <algorithm>
#include <array>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

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
    return decode_properties(text, 0);
}

RMQ_DECL Properties decode_properties(std::string_view text, std::size_t room) {
    // The entries are sorted and de-duplicated as views first, so each name and value is copied into its
    // string once, in its final place (a pulled message's dozen properties are decoded for every message of
    // every pull).
    using View = std::pair<std::string_view, std::string_view>;
    constexpr std::size_t stack_max = 32;
    std::array<View, stack_max> on_stack;
    std::vector<View> on_heap;
    std::size_t n = 0;
    const auto add = [&](View v) {
        if (n < stack_max) {
            on_stack[n] = v;
        } else {
            if (on_heap.empty()) {
                on_heap.assign(on_stack.begin(), on_stack.end());
            }
            on_heap.push_back(v);
        }
        ++n;
    };
    while (!text.empty()) {
        const std::size_t end = text.find(property::property_separator);
        const std::string_view entry = text.substr(0, end);
        if (const std::size_t sep = entry.find(property::name_value_separator);
            sep != std::string_view::npos && sep > 0 && sep + 1 < entry.size()) {
            add(View{entry.substr(0, sep), entry.substr(sep + 1)});
        }
        if (end == std::string_view::npos) {
            break;
        }
        text.remove_prefix(end + 1);
    }
    const std::span<View> views =
        n <= stack_max ? std::span<View>(on_stack.data(), n) : std::span<View>(on_heap);
    // Stable (of equal names the later stays later, and is the one kept, as Java's HashMap). A message's
    // dozen entries sort fastest by insertion, with no buffer to allocate; a damaged or hostile string of
    // thousands must not cost a quadratic sort.
    const auto less = [](const View& a, const View& b) {
        return Properties::name_less(a.first, b.first);
    };
    if (views.size() > stack_max) {
        std::stable_sort(views.begin(), views.end(), less);
    }
    for (std::size_t i = 1; i < views.size(); ++i) {
        const View moving = views[i];
        std::size_t j = i;
        for (; j > 0 && less(moving, views[j - 1]); --j) {
            views[j] = views[j - 1];
        }
        views[j] = moving;
    }
    std::size_t kept = 0;
    for (const View& v : views) {
        if (kept > 0 && views[kept - 1].first == v.first) {
            views[kept - 1].second = v.second;
        } else {
            views[kept++] = v;
        }
    }
    Properties out;
    out.entries_.reserve(kept + room);
    for (std::size_t i = 0; i < kept; ++i) {
        out.entries_.emplace_back(std::piecewise_construct,
                                  std::forward_as_tuple(views[i].first),
                                  std::forward_as_tuple(views[i].second));
    }
    return out;
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
