#pragma once

/// @file offset_store/local_file.hpp
/// rmq::LocalFileOffsetStore: Java's LocalFileOffsetStore, the broadcasting default. Every consumer keeps its
/// own progress in `<store_dir>/<client_id>/<group>/offsets.json`, in Java's format, so rmq and Java clients
/// can take over each other's file.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/config.hpp>
#include <rmq/consume_context.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/offset_store/offset_file.hpp>
#include <rmq/detail/offset_store/offset_table.hpp>

namespace rmq {

namespace detail {
/// `$RMQ_OFFSET_STORE_DIR` (rmq's stand-in for Java's rocketmq.client.localOffsetStoreDir property), else
/// `$HOME/.rocketmq_offsets` (Java's `${user.home}/.rocketmq_offsets`).
std::string default_offset_store_dir();
}  // namespace detail

/// File-backed offset store (docs/policies/offset_store.md) with 4.9.8+ semantics: persist_all merges into
/// the file (entries of other queues survive), persist(mq) writes one entry, remove_offset forgets memory
/// only. Writes are durable (tmp + fsync + rename) and keep the previous good file as `offsets.json.bak`;
/// reads fall back to the .bak. Thread-safe.
class LocalFileOffsetStore {
public:
    /// Root directory of offset files; read at load().
    std::string store_dir = detail::default_offset_store_dir();

    /// Called with the reason when a persist could not read or write the file (Java logs it). Optional.
    std::function<void(std::string_view)> on_persist_error;

    /// Reads the file (or its .bak) into memory. Throws rmq::Error when both are unreadable, which aborts the
    /// consumer's start rather than silently restarting from ConsumeFromWhere.
    void load(const OffsetStoreContext& ctx);

    /// The offsets file this store uses (empty before load()).
    [[nodiscard]] const std::filesystem::path& file_path() const noexcept { return path_; }

    /// Java's updateOffset: create, or raise only (`increase_only`), or set (memory only).
    void update_offset(const MessageQueue& mq, std::int64_t offset, bool increase_only) {
        table_.update(mq, offset, increase_only);
    }

    /// 5.x updateAndFreezeOffset: set and ignore later updates until remove_offset.
    void update_and_freeze_offset(const MessageQueue& mq, std::int64_t offset) {
        table_.update_and_freeze(mq, offset);
    }

    /// Java's readOffset: memory (-1 when absent), or the file's entry (stored in memory); -1 when the file
    /// has no entry for `mq` or cannot be read.
    [[nodiscard]] std::int64_t read_offset(const MessageQueue& mq, ReadOffsetType type);

    /// Writes the queue's in-memory offset into the file (other entries kept), if there is one.
    void persist(const MessageQueue& mq) {
        if (auto v = table_.get(mq)) {
            write_merged({{mq, *v}});
        }
    }

    /// Java's persistAll (4.9.8+): merges the in-memory offsets of the queues in `mqs` into the file. An
    /// empty `mqs` does nothing; when the current file cannot be read nothing is written.
    void persist_all(std::span<const MessageQueue> mqs);

    /// Forgets the queue's in-memory offset (the file keeps it; Java 4.9.8).
    void remove_offset(const MessageQueue& mq) { table_.remove(mq); }

    /// A copy of the in-memory table.
    [[nodiscard]] std::map<MessageQueue, std::int64_t> offset_table() const { return table_.snapshot(); }

    /// Java's cloneOffsetTable(topic): the entries of `topic` (all when empty).
    [[nodiscard]] std::map<MessageQueue, std::int64_t> clone_offset_table(std::string_view topic) const {
        return table_.snapshot(topic);
    }

private:
    void write_merged(const std::map<MessageQueue, std::int64_t>& updates);

    std::filesystem::path path_;
    std::unique_ptr<std::mutex> file_mutex_ = std::make_unique<std::mutex>();  // keeps the store movable
    detail::OffsetTable table_;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/offset_store/impl/local_file.ipp>
#endif
