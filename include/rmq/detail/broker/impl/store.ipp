#pragma once

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include <rmq/detail/broker/store.hpp>
#include <rmq/detail/util/crc32.hpp>

namespace rmq::detail {

RMQ_DECL std::string offset_message_id(std::int64_t commit_log_offset) {
    return fmt::format("7F00000100002A9F{:016X}", static_cast<std::uint64_t>(commit_log_offset));
}

RMQ_DECL std::int32_t stored_message_size(const MessageExt& m, std::size_t properties_length) {
    return static_cast<std::int32_t>(91 + m.body().size() + m.topic().size() + properties_length);
}

RMQ_DECL std::int64_t tags_code_of(const Message& m) {
    const auto tags = m.tags();
    return tags.empty() ? 0 : tag_hash(tags);
}

RMQ_DECL bool matched_by_consume_queue(const std::optional<SubscriptionData>& sub, std::int64_t tags_code) {
    if (!sub || sub->class_filter_mode) {
        return true;
    }
    // SQL92 has no consume-queue filter without a bloom filter: the commit-log check decides (pull.ipp).
    if (sub->expression_type != expression_type_tag || sub->sub_string == sub_all) {
        return true;
    }
    return sub->code_set.contains(static_cast<std::int32_t>(tags_code));
}

RMQ_DECL std::int32_t parse_int_or(std::string_view text, std::int32_t fallback) {
    if (text.empty()) {
        return fallback;
    }
    std::int64_t v = 0;
    bool negative = false;
    std::size_t i = 0;
    if (text[0] == '-') {
        negative = true;
        i = 1;
    }
    for (; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9') {
            return fallback;
        }
        v = v * 10 + (text[i] - '0');
    }
    return static_cast<std::int32_t>(negative ? -v : v);
}

RMQ_DECL void MessageStore::add_queues(const std::string& topic, std::size_t count) {
    auto& queues = topics_[topic];
    if (queues.size() < count) {
        queues.resize(count);
    }
}

RMQ_DECL std::optional<std::size_t> MessageStore::queue_count(const std::string& topic) const {
    const auto it = topics_.find(topic);
    if (it == topics_.end()) {
        return std::nullopt;
    }
    return it->second.size();
}

RMQ_DECL QueueLog* MessageStore::find_queue(const std::string& topic, std::int32_t queue_id) {
    const auto it = topics_.find(topic);
    if (it == topics_.end() || queue_id < 0 || static_cast<std::size_t>(queue_id) >= it->second.size()) {
        return nullptr;
    }
    return &it->second[static_cast<std::size_t>(queue_id)];
}

RMQ_DECL const QueueLog* MessageStore::find_queue(const std::string& topic, std::int32_t queue_id) const {
    // One lookup for both overloads; the non-const one does not modify the store.
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast)
    return const_cast<MessageStore*>(this)->find_queue(topic, queue_id);
}

RMQ_DECL QueueLog& MessageStore::ensure_queue(const std::string& topic, std::int32_t queue_id) {
    auto& queues = topics_[topic];
    if (queues.size() <= static_cast<std::size_t>(queue_id)) {
        queues.resize(static_cast<std::size_t>(queue_id) + 1);
    }
    return queues[static_cast<std::size_t>(queue_id)];
}

RMQ_DECL std::int64_t MessageStore::max_offset(const std::string& topic, std::int32_t queue_id) const {
    const QueueLog* q = find_queue(topic, queue_id);
    return q ? q->next : 0;
}

RMQ_DECL std::shared_ptr<const MessageExt>
MessageStore::append(MessageExt m, std::int64_t tags_code, std::int64_t store_timestamp) {
    QueueLog& q = ensure_queue(m.topic(), m.queue_id());
    m.set_queue_offset(q.next);
    m.set_commit_log_offset(commit_log_offset_);
    m.set_store_timestamp(store_timestamp);
    m.set_store_host(std::string(broker_store_host));
    m.set_broker_name(broker_name_);
    m.set_body_crc(detail::crc32(m.body()));
    m.set_store_size(stored_message_size(m, encode_properties(m.properties()).size()));
    m.set_offset_msg_id(offset_message_id(commit_log_offset_));
    m.shrink_properties();  // a stored message is only copied from: not the slack of its growth
    commit_log_offset_ += m.store_size();
    auto stored = std::make_shared<const MessageExt>(std::move(m));
    q.entries.push_back(StoredEntry{stored, tags_code});
    ++q.next;
    commit_log_.emplace(stored->commit_log_offset(), stored);
    return stored;
}

RMQ_DECL const MessageExt* MessageStore::find_by_commit_offset(std::int64_t commit_log_offset) const {
    const auto it = commit_log_.find(commit_log_offset);
    return it == commit_log_.end() ? nullptr : it->second.get();
}

RMQ_DECL std::vector<MessageExt>
MessageStore::messages(const std::string& topic, std::int32_t queue_id, std::int64_t from) const {
    std::vector<MessageExt> out;
    const QueueLog* q = find_queue(topic, queue_id);
    if (q == nullptr) {
        return out;
    }
    for (std::int64_t o = std::max(from, q->base); o < q->next; ++o) {
        out.push_back(*q->entries[static_cast<std::size_t>(o - q->base)].msg);
    }
    return out;
}

RMQ_DECL std::int64_t
MessageStore::search(const std::string& topic, std::int32_t queue_id, std::int64_t timestamp) const {
    const QueueLog* q = find_queue(topic, queue_id);
    if (q == nullptr) {
        return 0;
    }
    const auto it = std::partition_point(q->entries.begin(), q->entries.end(), [&](const StoredEntry& e) {
        return e.msg->store_timestamp() < timestamp;
    });
    return q->base + static_cast<std::int64_t>(it - q->entries.begin());
}

RMQ_DECL bool
MessageStore::delete_before(const std::string& topic, std::int32_t queue_id, std::int64_t offset) {
    QueueLog* q = find_queue(topic, queue_id);
    if (q == nullptr) {
        return false;
    }
    while (q->base < offset && !q->entries.empty()) {
        commit_log_.erase(q->entries.front().msg->commit_log_offset());
        q->entries.pop_front();
        ++q->base;
    }
    return true;
}

}  // namespace rmq::detail
