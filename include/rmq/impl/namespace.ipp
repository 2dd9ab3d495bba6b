#pragma once

/// @file impl/namespace.ipp
/// Definitions of namespace.hpp.

#include <rmq/namespace.hpp>

// Only the definitions need these.
#include <array>

#include <fmt/format.h>

#include <rmq/topic.hpp>

namespace rmq {

namespace detail {

// NamespaceUtil.isSystemResource.
inline bool is_system_resource(std::string_view resource) noexcept {
    return !resource.empty() && (is_system_topic(resource) || is_sys_consumer_group(resource));
}

// The `%RETRY%` / `%DLQ%` prefix of a resource (empty if none).
inline std::string_view group_topic_prefix(std::string_view resource) noexcept {
    if (is_retry_topic(resource)) {
        return retry_group_topic_prefix;
    }
    if (is_dlq_topic(resource)) {
        return dlq_group_topic_prefix;
    }
    return {};
}

// The resource without its `%RETRY%` / `%DLQ%` prefix (NamespaceUtil.withOutRetryAndDLQ).
inline std::string_view without_retry_and_dlq(std::string_view resource) noexcept {
    return resource.substr(group_topic_prefix(resource).size());
}

inline bool starts_with_namespace(std::string_view bare, std::string_view ns) noexcept {
    return bare.size() > ns.size() && bare.starts_with(ns) && bare[ns.size()] == namespace_separator;
}

}  // namespace detail

RMQ_DECL bool is_system_topic(std::string_view topic) noexcept {
    static constexpr std::array<std::string_view, 12> names{
        "TBW102",
        "SCHEDULE_TOPIC_XXXX",
        "BenchmarkTest",
        "RMQ_SYS_TRANS_HALF_TOPIC",
        "RMQ_SYS_TRACE_TOPIC",
        "RMQ_SYS_TRANS_OP_HALF_TOPIC",
        "TRANS_CHECK_MAX_TIME_TOPIC",
        "SELF_TEST_TOPIC",
        "OFFSET_MOVED_EVENT",
        "CHECKPOINT_TOPIC",
        "RMQ_SYS_ROCKSDB_TRANS_HALF_TOPIC",
        "RMQ_SYS_ROCKSDB_TRANS_OP_HALF_TOPIC",
    };
    for (const auto name : names) {
        if (topic == name) {
            return true;
        }
    }
    return topic.starts_with(system_topic_prefix);
}

RMQ_DECL std::string wrap_namespace(std::string_view resource, std::string_view ns) {
    if (ns.empty() || resource.empty() || detail::is_system_resource(resource)) {
        return std::string(resource);
    }
    const auto bare = detail::without_retry_and_dlq(resource);
    if (detail::starts_with_namespace(bare, ns)) {
        return std::string(resource);
    }
    return fmt::format("{}{}{}{}", detail::group_topic_prefix(resource), ns, namespace_separator, bare);
}

RMQ_DECL std::string without_namespace(std::string_view resource) {
    if (resource.empty() || detail::is_system_resource(resource)) {
        return std::string(resource);
    }
    const auto bare = detail::without_retry_and_dlq(resource);
    const auto index = bare.find(namespace_separator);
    // Java's `index > 0`: a leading separator is not a namespace.
    if (index == std::string_view::npos || index == 0) {
        return std::string(resource);
    }
    return fmt::format("{}{}", detail::group_topic_prefix(resource), bare.substr(index + 1));
}

RMQ_DECL std::string without_namespace(std::string_view resource, std::string_view ns) {
    if (resource.empty() || ns.empty()) {
        return std::string(resource);
    }
    if (detail::starts_with_namespace(detail::without_retry_and_dlq(resource), ns)) {
        return without_namespace(resource);
    }
    return std::string(resource);
}

RMQ_DECL std::string namespace_of(std::string_view resource) {
    if (resource.empty() || detail::is_system_resource(resource)) {
        return {};
    }
    const auto bare = detail::without_retry_and_dlq(resource);
    const auto index = bare.find(namespace_separator);
    if (index == std::string_view::npos || index == 0) {
        return {};
    }
    return std::string(bare.substr(0, index));
}

}  // namespace rmq
