#pragma once

/// @file detail/offset_store/offset_file.hpp
/// The local offset file of broadcasting consumers (LocalFileOffsetStore, docs/policies/offset_store.md):
/// Java's fastjson form, where the keys of "offsetTable" are MessageQueue objects (not valid JSON), read
/// tolerantly and written the same way so Java clients and rmq can share the file; plus the durable tmp/.bak
/// write and the .bak fallback on read. Definitions in detail/offset_store/impl/offset_file.ipp.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include <rmq/config.hpp>
#include <rmq/message_queue.hpp>

namespace rmq::detail {

/// Parses `{"offsetTable":{<key>:<number>,...}}` where a key is a MessageQueue object
/// `{"brokerName":..,"queueId":..,"topic":..}` (fastjson, any field order and whitespace) or a JSON string
/// holding such an object. Other top-level fields are skipped. Throws rmq::Error describing the first defect.
std::map<MessageQueue, std::int64_t> parse_offset_file(std::string_view text);

/// Writes the table exactly as Java's `OffsetSerializeWrapper.toJson(true)` (fastjson pretty format, tabs,
/// MessageQueue keys with fields in alphabetical order), so a Java client can read rmq's file.
std::string format_offset_file(const std::map<MessageQueue, std::int64_t>& table);

/// Java's readLocalOffset + readLocalOffsetBak, stricter: the main file, or `.bak` when the main file is
/// missing, empty or corrupt; empty when neither exists. A corrupt main file with a missing, empty or corrupt
/// `.bak` throws rmq::Error naming both files (Java silently starts from nothing, which can skip messages).
std::map<MessageQueue, std::int64_t> read_offset_file(const std::filesystem::path& path);

/// Durable replace: write `<path>.tmp` and fsync it; if the current file parses, keep it as `<path>.bak`
/// (itself written through `<path>.bak.tmp` + rename, so a good backup is never replaced by a bad one or
/// half-written); rename `.tmp` over the file (atomic on POSIX); fsync the directory.
void write_offset_file(const std::filesystem::path& path, const std::map<MessageQueue, std::int64_t>& table);

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/offset_store/impl/offset_file.ipp>
#endif
