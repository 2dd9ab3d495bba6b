#pragma once

#include <algorithm>

#include <fmt/format.h>

#include <rmq/error.hpp>

#include <rmq/detail/broker/pull.hpp>
#include <rmq/detail/util/copy_with_room.hpp>

namespace rmq::detail {

/// The answers that need no scan: an empty queue and offsets outside [min, max). False when a scan is due.
RMQ_DECL bool offset_out_of_range(const QueueLog& q, std::int64_t offset, PullResult& r, int& code) {
    if (q.next == 0) {  // NO_MESSAGE_IN_QUEUE
        code = offset == 0 ? response_code::pull_not_found : response_code::pull_offset_moved;
        r.next_begin_offset = 0;
    } else if (offset < q.base) {  // OFFSET_TOO_SMALL
        code = response_code::pull_offset_moved;
        r.next_begin_offset = q.base;
    } else if (offset == q.next) {  // OFFSET_OVERFLOW_ONE
        code = response_code::pull_not_found;
        r.next_begin_offset = offset;
    } else if (offset > q.next) {  // OFFSET_OVERFLOW_BADLY
        code = response_code::pull_offset_moved;
        r.next_begin_offset = q.next;
    } else {
        return false;
    }
    return true;
}

/// Scans from the request's offset to the end of its consume-queue file, at most max(16000 B, 20 B x
/// maxMsgNums) of units, until the batch is full; every scanned unit advances next_begin_offset.
RMQ_DECL void scan(const QueueLog& q,
                   const PullArgs& a,
                   const std::optional<SubscriptionData>& sub,
                   const BrokerConfig& config,
                   PullResult& r) {
    const std::int64_t offset = a.queue_offset;
    const std::int64_t file_end = (offset / consume_queue_file_units + 1) * consume_queue_file_units;
    const std::int64_t end = std::min(q.next, file_end);
    const std::int64_t max_scan =
        std::max<std::int64_t>(max_filter_message_bytes,
                               std::int64_t{a.max_msg_nums} * consume_queue_unit_size) /
        consume_queue_unit_size;
    // ExpressionMessageFilter.isMatchedByCommitLog: SQL92 is evaluated over each message's properties
    // (pull_subscription checked that it compiles).
    std::optional<filter::SqlExpression> sql;
    if (sub && !sub->class_filter_mode && sub->expression_type == expression_type_sql92) {
        sql.emplace(filter::compile(sub->sub_string));
    }
    // Room for a full batch up front: the answer's messages are copied in once, never moved by a regrowth.
    r.msg_found_list.reserve(static_cast<std::size_t>(
        std::clamp<std::int64_t>(std::min<std::int64_t>(std::int64_t{a.max_msg_nums}, end - offset),
                                 0,
                                 std::max<std::int64_t>(1, config.max_transfer_count_on_message_in_memory))));
    std::int64_t bytes = 0;
    std::int64_t scanned = 0;
    for (std::int64_t o = offset; o < end && scanned < max_scan; ++o) {
        const StoredEntry& e = q.entries[static_cast<std::size_t>(o - q.base)];
        const std::int64_t size = e.msg->store_size();
        const auto count = static_cast<std::int64_t>(r.msg_found_list.size());
        if (count > 0 &&
            (count >= a.max_msg_nums || bytes + size > config.max_transfer_bytes_on_message_in_memory ||
             count > config.max_transfer_count_on_message_in_memory - 1)) {
            break;  // isTheBatchFull: this unit is not consumed
        }
        ++scanned;
        if (!matched_by_consume_queue(sub, e.tags_code) || (sql && !sql->matches(*e.msg))) {
            continue;
        }
        // The answer goes to a consumer, which stamps three properties on it: room for them in the copy.
        r.msg_found_list.emplace_back(*e.msg, consumer_added_properties);
        bytes += size;
    }
    r.next_begin_offset = offset + scanned;
}

RMQ_DECL PullStatus status_of(int code) noexcept {
    switch (code) {
    case response_code::success:
        return PullStatus::Found;
    case response_code::pull_retry_immediately:
        return PullStatus::NoMatchedMsg;
    case response_code::pull_not_found:
        return PullStatus::NoNewMsg;
    default:
        return PullStatus::OffsetIllegal;
    }
}

/// The group's stored subscription of the pulled topic.
RMQ_DECL Outcome<SubscriptionData> stored_subscription(const PullArgs& a, const Membership& membership) {
    if (!membership.has_group(a.consumer_group)) {
        return {response_code::subscription_not_exist,
                fmt::format("the consumer's group info not exist, group: {}", a.consumer_group)};
    }
    const SubscriptionData* s = membership.find_subscription(a.consumer_group, a.mq.topic);
    if (s == nullptr) {
        return {response_code::subscription_not_exist,
                fmt::format("the consumer's subscription not exist, group: {} topic: {}",
                            a.consumer_group,
                            a.mq.topic)};
    }
    if (s->sub_version < a.sub_version) {
        return {response_code::subscription_not_latest,
                fmt::format("the consumer's subscription not latest, group: {} topic: {}",
                            a.consumer_group,
                            a.mq.topic)};
    }
    return *s;
}

RMQ_DECL std::optional<Outcome<PullResult>> check_pull_target(const PullArgs& a,
                                                              const BrokerConfig& config,
                                                              SubscriptionGroups& groups,
                                                              const MessageStore& store) {
    using O = Outcome<PullResult>;
    if (a.mq.broker_name != config.broker_name) {
        return O(response_code::system_error,
                 fmt::format("{} does not belong to broker {}", a.mq, config.broker_name));
    }
    if (a.consumer_group.empty()) {
        return O(response_code::system_error, "pull without consumer group");
    }
    if (!groups.ensure(a.consumer_group)) {
        return O(response_code::subscription_group_not_exist,
                 fmt::format("subscription group [{}] does not exist", a.consumer_group));
    }
    const auto queue_count = store.queue_count(a.mq.topic);
    if (!queue_count) {
        return O(response_code::topic_not_exist,
                 fmt::format("topic[{}] not exist, apply first please!", a.mq.topic));
    }
    const auto read_queue_nums = static_cast<std::int32_t>(*queue_count);
    if (a.mq.queue_id < 0 || a.mq.queue_id >= read_queue_nums) {
        return O(
            response_code::system_error,
            fmt::format("queueId[{}] is illegal, topic:[{}] topicConfig.readQueueNums:[{}] consumer:[{}]",
                        a.mq.queue_id,
                        a.mq.topic,
                        read_queue_nums,
                        a.consumer_group));
    }
    return std::nullopt;
}

RMQ_DECL Outcome<SubscriptionData>
pull_subscription(const PullArgs& a, const Membership& membership, const BrokerConfig& config) {
    std::optional<Outcome<SubscriptionData>> sub;
    if ((a.sys_flag & pull_sys_flag::subscription) != 0) {
        try {
            sub.emplace(parse_subscription(a.mq.topic, a.subscription, a.expression_type));
        } catch (const Error&) {
            return {response_code::subscription_parse_failed, "parse the consumer's subscription failed"};
        }
    } else {
        sub.emplace(stored_subscription(a, membership));
    }
    if (!sub->ok() || sub->value().expression_type == expression_type_tag) {
        return std::move(*sub);
    }
    if (!config.enable_property_filter || sub->value().expression_type != expression_type_sql92) {
        return {response_code::system_error,
                fmt::format("The broker does not support consumer to filter message by {}",
                            sub->value().expression_type)};
    }
    try {
        (void)filter::compile(sub->value().sub_string);
    } catch (const Error& e) {
        return {response_code::subscription_parse_failed, e.what()};
    }
    return std::move(*sub);
}

RMQ_DECL PullResult get_message(const QueueLog& q,
                                const PullArgs& a,
                                const std::optional<SubscriptionData>& sub,
                                const BrokerConfig& config,
                                int& code) {
    PullResult r;
    r.min_offset = q.base;
    r.max_offset = q.next;
    if (!offset_out_of_range(q, a.queue_offset, r, code)) {
        scan(q, a, sub, config, r);
        code = r.msg_found_list.empty() ? response_code::pull_retry_immediately : response_code::success;
    }
    r.status = status_of(code);
    return r;
}

}  // namespace rmq::detail
