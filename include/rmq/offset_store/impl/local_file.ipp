#pragma once

/// @file offset_store/impl/local_file.ipp
/// Definitions of offset_store/local_file.hpp.

#include <rmq/offset_store/local_file.hpp>

// Only the definitions need these.
#include <cstdlib>
#include <exception>

#include <fmt/format.h>

namespace rmq {

namespace detail {
RMQ_DECL std::string default_offset_store_dir() {
    // getenv races only with setenv, which rmq never calls.
    // NOLINTNEXTLINE(concurrency-mt-unsafe)
    if (const char* dir = std::getenv("RMQ_OFFSET_STORE_DIR"); dir != nullptr && *dir != '\0') {
        return dir;
    }
    const char* home = std::getenv("HOME");  // NOLINT(concurrency-mt-unsafe): as above
    return fmt::format("{}/.rocketmq_offsets", home != nullptr ? home : ".");
}
}  // namespace detail

RMQ_DECL void LocalFileOffsetStore::load(const OffsetStoreContext& ctx) {
    path_ = std::filesystem::path(store_dir) / ctx.client_id / ctx.group / "offsets.json";
    const std::lock_guard lock(*file_mutex_);
    for (const auto& [mq, offset] : detail::read_offset_file(path_)) {
        table_.update(mq, offset, false);
    }
}

RMQ_DECL std::int64_t LocalFileOffsetStore::read_offset(const MessageQueue& mq, ReadOffsetType type) {
    if (type != ReadOffsetType::ReadFromStore) {
        if (auto v = table_.get(mq)) {
            return *v;
        }
        if (type == ReadOffsetType::ReadFromMemory) {
            return -1;
        }
    }
    if (path_.empty()) {
        return -1;
    }
    try {
        std::map<MessageQueue, std::int64_t> file;
        {
            const std::lock_guard lock(*file_mutex_);
            file = detail::read_offset_file(path_);
        }
        if (auto it = file.find(mq); it != file.end()) {
            table_.update(mq, it->second, false);
            return it->second;
        }
    } catch (const std::exception&) {
    }
    return -1;
}

RMQ_DECL void LocalFileOffsetStore::persist_all(std::span<const MessageQueue> mqs) {
    if (mqs.empty()) {
        return;
    }
    std::map<MessageQueue, std::int64_t> updates;
    for (const auto& [mq, offset] : table_.snapshot()) {
        if (detail::contains_queue(mqs, mq)) {
            updates.emplace(mq, offset);
        }
    }
    write_merged(updates);
}

RMQ_DECL void LocalFileOffsetStore::write_merged(const std::map<MessageQueue, std::int64_t>& updates) {
    if (path_.empty()) {
        return;
    }
    const std::lock_guard lock(*file_mutex_);
    try {
        auto file = detail::read_offset_file(path_);
        for (const auto& [mq, offset] : updates) {
            file.insert_or_assign(mq, offset);
        }
        detail::write_offset_file(path_, file);
    } catch (const std::exception& e) {
        if (on_persist_error) {
            on_persist_error(e.what());
        }
    }
}

}  // namespace rmq
