#pragma once

/// @file namespace.hpp
/// Namespaces (`<ns>%<name>`, `%RETRY%<ns>%<group>`) and the system resources they never apply to, as Java's
/// NamespaceUtil, MixAll.isSysConsumerGroup and TopicValidator.isSystemTopic define them.

#include <string>
#include <string_view>

#include <rmq/config.hpp>

namespace rmq {

/// NamespaceUtil.NAMESPACE_SEPARATOR.
inline constexpr char namespace_separator = '%';
/// MixAll.CID_SYS_RMQ_TRANS's prefix (MixAll.isSysConsumerGroup).
inline constexpr std::string_view sys_consumer_group_prefix = "CID_RMQ_SYS_";
/// TopicValidator.SYSTEM_TOPIC_PREFIX.
inline constexpr std::string_view system_topic_prefix = "rmq_sys_";

/// TopicValidator.isSystemTopic: one of TopicValidator's system topics (TBW102, SCHEDULE_TOPIC_XXXX,
/// BenchmarkTest, RMQ_SYS_TRANS_HALF_TOPIC, RMQ_SYS_TRACE_TOPIC, RMQ_SYS_TRANS_OP_HALF_TOPIC,
/// TRANS_CHECK_MAX_TIME_TOPIC, SELF_TEST_TOPIC, OFFSET_MOVED_EVENT, and 5.x's CHECKPOINT_TOPIC,
/// RMQ_SYS_ROCKSDB_TRANS_HALF_TOPIC, RMQ_SYS_ROCKSDB_TRANS_OP_HALF_TOPIC) or a name starting `rmq_sys_`.
[[nodiscard]] bool is_system_topic(std::string_view topic) noexcept;

/// MixAll.isSysConsumerGroup: the group starts `CID_RMQ_SYS_`.
[[nodiscard]] inline bool is_sys_consumer_group(std::string_view group) noexcept {
    return group.starts_with(sys_consumer_group_prefix);
}

/// NamespaceUtil.wrapNamespace: `<ns>%<resource>`, keeping a `%RETRY%` / `%DLQ%` prefix in front. Unchanged
/// when `ns` or `resource` is empty, the resource is a system topic or group, or it already carries `ns`.
[[nodiscard]] std::string wrap_namespace(std::string_view resource, std::string_view ns);

/// NamespaceUtil.withoutNamespace(resource): drops whatever namespace the resource carries (the text before
/// the first `%` after a `%RETRY%` / `%DLQ%` prefix). System topics and groups are returned unchanged.
[[nodiscard]] std::string without_namespace(std::string_view resource);

/// NamespaceUtil.withoutNamespace(resource, ns): drops the namespace only if it is `ns`.
[[nodiscard]] std::string without_namespace(std::string_view resource, std::string_view ns);

/// NamespaceUtil.getNamespaceFromResource: the namespace the resource carries, empty if none (or a system
/// resource).
[[nodiscard]] std::string namespace_of(std::string_view resource);

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/namespace.ipp>
#endif
