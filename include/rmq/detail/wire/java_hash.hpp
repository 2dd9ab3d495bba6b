#pragma once

/// @file detail/wire/java_hash.hpp
/// Java's HashSet/HashMap iteration order, so JSON bodies list set members in the order a Java peer writes
/// them (the order carries no meaning on the wire; reproducing it makes bodies byte-identical to Java's).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <rmq/message_queue.hpp>
#include <rmq/subscription.hpp>

namespace rmq::detail {

/// Table size of a java.util.HashMap/HashSet that received `n` entries one by one (default capacity 16,
/// load factor 0.75, doubling).
inline std::size_t java_hash_capacity(std::size_t n) noexcept {
    std::size_t cap = 16;
    while (n > cap / 4 * 3) {
        cap *= 2;
    }
    return cap;
}

/// HashMap's bucket of a key with hashCode `h` in a table of `cap` entries.
inline std::size_t java_bucket(std::int32_t h, std::size_t cap) noexcept {
    const auto u = static_cast<std::uint32_t>(h);
    return static_cast<std::size_t>(u ^ (u >> 16)) & (cap - 1);
}

/// Reorders `items` (given in insertion order) into Java HashSet iteration order: by bucket, insertion order
/// within a bucket. `hash` is the element's Java hashCode.
template <class T, class Hash>
void java_hash_set_order(std::vector<T>& items, Hash hash) {
    const std::size_t cap = java_hash_capacity(items.size());
    std::stable_sort(items.begin(), items.end(), [&](const T& a, const T& b) {
        return java_bucket(hash(a), cap) < java_bucket(hash(b), cap);
    });
}

/// Java's String.hashCode.
inline std::int32_t java_string_hash(std::string_view s) noexcept {
    return tag_hash(s);
}

/// Java's MessageQueue.hashCode (brokerName, queueId, topic with the prime 31).
inline std::int32_t java_message_queue_hash(const MessageQueue& mq) noexcept {
    std::uint32_t h = 1;
    h = 31 * h + static_cast<std::uint32_t>(java_string_hash(mq.broker_name));
    h = 31 * h + static_cast<std::uint32_t>(mq.queue_id);
    h = 31 * h + static_cast<std::uint32_t>(java_string_hash(mq.topic));
    return static_cast<std::int32_t>(h);
}

/// Java's Long.hashCode.
inline std::int32_t java_long_hash(std::int64_t v) noexcept {
    const auto u = static_cast<std::uint64_t>(v);
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(u ^ (u >> 32)));
}

}  // namespace rmq::detail
