#pragma once

/// @file impl/process_queue.ipp
/// Definitions of process_queue.hpp.

#include <rmq/process_queue.hpp>

// Only the definitions need these.
#include <charconv>
#include <chrono>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include <rmq/detail/util/copy_with_room.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq {

RMQ_DECL ProcessQueue::ProcessQueue(std::shared_ptr<Clock> clock)
    : clock_(clock ? std::move(clock) : throw InvalidArgument("ProcessQueue: clock must not be null"))
    , last_pull_timestamp_(clock_->steady_millis())
    , last_consume_timestamp_(last_pull_timestamp_.load())
    , last_lock_timestamp_(last_pull_timestamp_.load()) {}

RMQ_DECL bool ProcessQueue::put_messages_shared(const std::shared_ptr<std::vector<MessageExt>>& batch,
                                                std::optional<std::int64_t> max_offset) {
    return put_locked(batch, max_offset, std::nullopt);
}

RMQ_DECL bool ProcessQueue::put_messages_shared(const std::shared_ptr<std::vector<MessageExt>>& batch,
                                                PullOffsets unstamped) {
    return put_locked(batch, unstamped.max_offset, unstamped);
}

RMQ_DECL bool ProcessQueue::put_locked(const std::shared_ptr<std::vector<MessageExt>>& batch,
                                       std::optional<std::int64_t> max_offset,
                                       std::optional<PullOffsets> unstamped) {
    if (!batch) {
        throw InvalidArgument("ProcessQueue::put_messages_shared: batch must not be null");
    }
    auto& msgs = *batch;
    const std::unique_lock lock(tree_mutex_);
    // Only the last message of the batch counts, as in Java.
    std::optional<std::int64_t> last_offset;
    std::optional<std::int64_t> last_max_offset;
    if (!msgs.empty()) {
        last_offset = msgs.back().queue_offset();
        last_max_offset =
            max_offset ? max_offset : parse_long(msgs.back().property_view(property::max_offset));
    }
    std::int64_t added = 0;
    std::int64_t added_bytes = 0;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
        const std::int64_t offset = msgs[i].queue_offset();
        if (msg_tree_.try_emplace(offset, Entry{batch, i, start_of(msgs[i]), unstamped}).second) {
            ++added;
            added_bytes += static_cast<std::int64_t>(msgs[i].body().size());
            queue_offset_max_.store(offset);
        }
    }
    msg_count_.fetch_add(added);
    msg_size_.fetch_add(added_bytes);

    bool dispatch = false;
    if (!msg_tree_.empty() && !consuming_.load()) {
        dispatch = true;
        consuming_.store(true);
    }
    if (last_offset && last_max_offset) {
        if (const std::int64_t acc = *last_max_offset - *last_offset; acc > 0) {
            msg_acc_cnt_.store(acc);
        }
    }
    return dispatch;
}

RMQ_DECL std::vector<MessageExt> ProcessQueue::take_messages(std::size_t batch_size) {
    std::vector<MessageExt> out;
    const std::unique_lock lock(tree_mutex_);
    last_consume_timestamp_.store(clock_->coarse_steady_millis());
    out.reserve(std::min(batch_size, msg_tree_.size()));
    while (out.size() < batch_size && !msg_tree_.empty()) {
        auto node = msg_tree_.extract(msg_tree_.begin());
        out.emplace_back(node.mapped().msg(), detail::consumer_added_properties);
        if (const auto& bounds = node.mapped().unstamped) {
            bounds->stamp(std::span<MessageExt>(&out.back(), 1));
        }
        consuming_tree_.insert(std::move(node));
    }
    if (out.empty()) {
        consuming_.store(false);
    }
    return out;
}

RMQ_DECL std::int64_t ProcessQueue::commit() {
    const std::unique_lock lock(tree_mutex_);
    if (consuming_tree_.empty()) {
        return -1;
    }
    const std::int64_t next = consuming_tree_.rbegin()->first + 1;
    const auto taken = static_cast<std::int64_t>(consuming_tree_.size());
    if (msg_count_.fetch_sub(taken) - taken == 0) {
        msg_size_.store(0);
    } else {
        std::int64_t bytes = 0;
        for (const auto& [offset, entry] : consuming_tree_) {
            bytes += static_cast<std::int64_t>(entry.msg().body().size());
        }
        msg_size_.fetch_sub(bytes);
    }
    consuming_tree_.clear();
    return next;
}

RMQ_DECL void ProcessQueue::rollback() {
    const std::unique_lock lock(tree_mutex_);
    while (!consuming_tree_.empty()) {
        auto node = consuming_tree_.extract(consuming_tree_.begin());
        msg_tree_.insert_or_assign(node.key(), std::move(node.mapped()));
    }
}

RMQ_DECL void ProcessQueue::make_message_to_consume_again(std::span<const std::int64_t> queue_offsets) {
    const std::unique_lock lock(tree_mutex_);
    for (const std::int64_t offset : queue_offsets) {
        if (auto node = consuming_tree_.extract(offset)) {
            msg_tree_.insert_or_assign(offset, std::move(node.mapped()));
        }
    }
}

RMQ_DECL void ProcessQueue::make_message_to_consume_again(std::span<const MessageExt> msgs) {
    const std::unique_lock lock(tree_mutex_);
    for (const auto& msg : msgs) {
        consuming_tree_.erase(msg.queue_offset());
        msg_tree_.insert_or_assign(
            msg.queue_offset(),
            Entry{std::make_shared<std::vector<MessageExt>>(1, msg), 0, start_of(msg), std::nullopt});
    }
}

RMQ_DECL void ProcessQueue::clear() {
    const std::unique_lock lock(tree_mutex_);
    msg_tree_.clear();
    consuming_tree_.clear();
    msg_count_.store(0);
    msg_size_.store(0);
    queue_offset_max_.store(0);
}

RMQ_DECL void ProcessQueue::set_consume_start(std::span<const std::int64_t> queue_offsets,
                                              std::int64_t wall_millis) {
    const std::string value = std::to_string(wall_millis);
    const std::unique_lock lock(tree_mutex_);
    for (const std::int64_t offset : queue_offsets) {
        if (const auto it = msg_tree_.find(offset); it != msg_tree_.end()) {
            it->second.msg().set_property(property::consume_start_timestamp, value);
            it->second.consume_start = wall_millis;
        } else if (const auto jt = consuming_tree_.find(offset); jt != consuming_tree_.end()) {
            jt->second.msg().set_property(property::consume_start_timestamp, value);
            jt->second.consume_start = wall_millis;
        }
    }
}

RMQ_DECL ProcessQueue::Info ProcessQueue::info() const {
    Info out;
    const std::shared_lock lock(tree_mutex_);
    if (!msg_tree_.empty()) {
        out.cached_msg_min_offset = msg_tree_.begin()->first;
        out.cached_msg_max_offset = msg_tree_.rbegin()->first;
        out.cached_msg_count = static_cast<std::int64_t>(msg_tree_.size());
    }
    out.cached_msg_size_in_mib = msg_size_.load() / (1024 * 1024);
    if (!consuming_tree_.empty()) {
        out.transaction_msg_min_offset = consuming_tree_.begin()->first;
        out.transaction_msg_max_offset = consuming_tree_.rbegin()->first;
        out.transaction_msg_count = static_cast<std::int64_t>(consuming_tree_.size());
    }
    out.locked = locked();
    out.try_unlock_times = try_unlock_times();
    out.last_lock_timestamp = last_lock_timestamp();
    out.dropped = dropped();
    out.last_pull_timestamp = last_pull_timestamp();
    out.last_consume_timestamp = last_consume_timestamp();
    return out;
}

RMQ_DECL bool ProcessQueue::try_lock_consume_for(Millis timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!consume_lock_.try_lock()) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(deadline - now, Millis(1)));
    }
    return true;
}

RMQ_DECL std::optional<std::int64_t> ProcessQueue::parse_long(std::string_view text) noexcept {
    std::int64_t value = 0;
    const char* const end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc{} || ptr != end) {
        return std::nullopt;
    }
    return value;
}

RMQ_DECL void ProcessQueue::log_send_back_failure(const MessageExt& msg, const std::exception_ptr& error) {
    std::string reason = "send_back returned false";
    if (error) {
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& e) {
            reason = e.what();
        } catch (...) {
            reason = "unknown exception";
        }
    }
    detail::log_line(LogLevel::Warn,
                     "send expired msg back failed, topic={}, queueId={}, queueOffset={}: {}\n",
                     msg.topic(),
                     msg.queue_id(),
                     msg.queue_offset(),
                     reason);
}

RMQ_DECL std::int64_t ProcessQueue::remove_locked(std::span<const std::int64_t> queue_offsets) {
    last_consume_timestamp_.store(clock_->coarse_steady_millis());
    if (msg_tree_.empty()) {
        return -1;
    }
    std::int64_t result = queue_offset_max_.load() + 1;
    std::int64_t removed = 0;
    std::int64_t removed_bytes = 0;
    for (const std::int64_t offset : queue_offsets) {
        if (const auto it = msg_tree_.find(offset); it != msg_tree_.end()) {
            ++removed;
            removed_bytes += static_cast<std::int64_t>(it->second.msg().body().size());
            msg_tree_.erase(it);
        }
    }
    if (msg_count_.fetch_sub(removed) - removed == 0) {
        msg_size_.store(0);
    } else {
        msg_size_.fetch_sub(removed_bytes);
    }
    if (!msg_tree_.empty()) {
        result = msg_tree_.begin()->first;
    }
    return result;
}

RMQ_DECL std::int64_t ProcessQueue::start_of(const MessageExt& msg) {
    return parse_long(msg.property_view(property::consume_start_timestamp)).value_or(-1);
}

}  // namespace rmq
