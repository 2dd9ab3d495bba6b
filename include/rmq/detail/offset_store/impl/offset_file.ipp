#pragma once

/// @file detail/offset_store/impl/offset_file.ipp
/// Definitions of detail/offset_store/offset_file.hpp: the tolerant fastjson reader, the Java-format writer
/// and the durable file replace.

#include <rmq/detail/offset_store/offset_file.hpp>

// Only the definitions need these.
#include <cerrno>
#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/error.hpp>

#if defined(__unix__) || defined(__APPLE__)
#    include <fcntl.h>
#    include <unistd.h>
#    define RMQ_HAVE_FSYNC 1
#endif

namespace rmq::detail {

/// Tolerant reader of `{"offsetTable":{<key>:<number>,...}}` where a key is a MessageQueue object
/// `{"brokerName":..,"queueId":..,"topic":..}` (fastjson, any field order and whitespace) or a JSON string
/// holding such an object. Other top-level fields are skipped. Throws rmq::Error describing the first defect.
class OffsetFileParser {
public:
    explicit OffsetFileParser(std::string_view text)
        : s_(text) {}

    std::map<MessageQueue, std::int64_t> parse() {
        std::map<MessageQueue, std::int64_t> out;
        expect('{');
        if (!try_consume('}')) {
            do {
                const std::string key = parse_string_token();
                expect(':');
                if (key == "offsetTable") {
                    parse_table(out);
                } else {
                    (void)balanced_value();
                }
            } while (try_consume(','));
            expect('}');
        }
        skip_ws();
        if (pos_ != s_.size()) {
            fail("trailing characters after the top-level object");
        }
        return out;
    }

private:
    [[noreturn]] void fail(std::string_view what) const {
        throw Error(fmt::format("malformed offset file at byte {}: {}", pos_, what));
    }

    void skip_ws() {
        while (pos_ < s_.size() &&
               (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
            ++pos_;
        }
    }

    char peek() {
        skip_ws();
        if (pos_ >= s_.size()) {
            fail("unexpected end of text");
        }
        return s_[pos_];
    }

    void expect(char c) {
        if (peek() != c) {
            fail(fmt::format("expected '{}' but found '{}'", c, s_[pos_]));
        }
        ++pos_;
    }

    bool try_consume(char c) {
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }

    /// The raw text of a JSON string token at pos_, quotes included.
    std::string_view string_token_raw() {
        if (peek() != '"') {
            fail("expected a string");
        }
        const std::size_t start = pos_++;
        while (pos_ < s_.size() && s_[pos_] != '"') {
            pos_ += s_[pos_] == '\\' ? 2 : 1;
        }
        if (pos_ >= s_.size()) {
            fail("unterminated string");
        }
        ++pos_;
        return s_.substr(start, pos_ - start);
    }

    std::string parse_string_token() {
        const std::string_view raw = string_token_raw();
        try {
            return nlohmann::json::parse(raw).get<std::string>();
        } catch (const nlohmann::json::exception& e) {
            fail(fmt::format("bad string {:.64}: {:.200}", raw, e.what()));
        }
    }

    /// The raw text of any value (object/array with nested strings, string, scalar), position after it.
    std::string_view balanced_value() {
        const char c = peek();
        const std::size_t start = pos_;
        if (c == '"') {
            return string_token_raw();
        }
        if (c == '{' || c == '[') {
            int depth = 0;
            while (pos_ < s_.size()) {
                const char d = s_[pos_];
                if (d == '"') {
                    (void)string_token_raw();
                    continue;
                }
                ++pos_;
                if (d == '{' || d == '[') {
                    ++depth;
                } else if (d == '}' || d == ']') {
                    if (--depth == 0) {
                        return s_.substr(start, pos_ - start);
                    }
                }
            }
            fail("unbalanced brackets");
        }
        while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '}' && s_[pos_] != ']' && s_[pos_] != ' ' &&
               s_[pos_] != '\t' && s_[pos_] != '\n' && s_[pos_] != '\r') {
            ++pos_;
        }
        if (pos_ == start) {
            fail("expected a value");
        }
        return s_.substr(start, pos_ - start);
    }

    MessageQueue parse_key() {
        nlohmann::json key;
        try {
            if (peek() == '{') {
                key = nlohmann::json::parse(balanced_value());
            } else {
                key = nlohmann::json::parse(parse_string_token());
            }
            if (!key.is_object() || !key.contains("topic") || !key.contains("brokerName") ||
                !key.contains("queueId")) {
                fail("a key lacks topic, brokerName or queueId");
            }
            return MessageQueue{key.at("topic").get<std::string>(),
                                key.at("brokerName").get<std::string>(),
                                queue_id(key.at("queueId"))};
        } catch (const nlohmann::json::exception& e) {
            fail(fmt::format("bad MessageQueue key: {:.200}", e.what()));
        }
    }

    /// A queue id is a non-negative int; anything else (1e300, 1.5, -1, 2^40) is damage, not a number to
    /// convert (a double out of int range converts with undefined behaviour).
    std::int32_t queue_id(const nlohmann::json& v) const {
        constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
        const bool in_range = v.is_number_unsigned()
                                  ? v.get<std::uint64_t>() <= max
                                  : v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
                                        static_cast<std::uint64_t>(v.get<std::int64_t>()) <= max;
        if (!in_range) {
            fail(fmt::format("queueId {:.32} is not a queue id", v.dump()));
        }
        return static_cast<std::int32_t>(v.get<std::int64_t>());
    }

    std::int64_t parse_offset() {
        skip_ws();
        const std::string_view raw = balanced_value();
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
        if (ec != std::errc{} || end != raw.data() + raw.size()) {
            fail(fmt::format("offset '{:.32}' is not a 64-bit integer", raw));
        }
        if (v < -1) {
            // -1 is RocketMQ's "no offset" and may be persisted; nothing else below 0 is written by anyone.
            fail(fmt::format("offset {} is negative", v));
        }
        return v;
    }

    void parse_table(std::map<MessageQueue, std::int64_t>& out) {
        expect('{');
        if (try_consume('}')) {
            return;
        }
        do {
            MessageQueue mq = parse_key();
            expect(':');
            out.insert_or_assign(std::move(mq), parse_offset());
        } while (try_consume(','));
        expect('}');
    }

    std::string_view s_;
    std::size_t pos_ = 0;
};

/// Parses an offset file's text (see OffsetFileParser).
RMQ_DECL std::map<MessageQueue, std::int64_t> parse_offset_file(std::string_view text) {
    return OffsetFileParser(text).parse();
}

/// Writes the table exactly as Java's `OffsetSerializeWrapper.toJson(true)` (fastjson pretty format, tabs,
/// MessageQueue keys with fields in alphabetical order), so a Java client can read rmq's file.
RMQ_DECL std::string format_offset_file(const std::map<MessageQueue, std::int64_t>& table) {
    if (table.empty()) {
        return "{\n\t\"offsetTable\":{}\n}";
    }
    std::string out = "{\n\t\"offsetTable\":{";
    bool first = true;
    for (const auto& [mq, offset] : table) {
        if (!first) {
            out += ',';
        }
        first = false;
        out +=
            fmt::format("{{\n\t\t\t\"brokerName\":{},\n\t\t\t\"queueId\":{},\n\t\t\t\"topic\":{}\n\t\t}}:{}",
                        nlohmann::json(mq.broker_name).dump(),
                        mq.queue_id,
                        nlohmann::json(mq.topic).dump(),
                        offset);
    }
    out += "\n\t}\n}";
    return out;
}

/// The whole file, nullopt when it does not exist; throws rmq::Error when it exists but cannot be read.
RMQ_DECL std::optional<std::string> read_text_file(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Error(fmt::format("cannot open offset file {}", path.string()));
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) {
        throw Error(fmt::format("cannot read offset file {}", path.string()));
    }
    return std::move(buf).str();
}

RMQ_DECL bool is_blank(std::string_view s) noexcept {
    return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

/// Writes `text` to `path` and flushes it to disk (fsync) before returning.
RMQ_DECL void write_file_synced(const std::filesystem::path& path, std::string_view text) {
#if defined(RMQ_HAVE_FSYNC)
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        throw Error(
            fmt::format("cannot create {}: {}", path.string(), std::generic_category().message(errno)));
    }
    std::size_t done = 0;
    while (done < text.size()) {
        const ::ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            const int err = errno;
            ::close(fd);
            throw Error(
                fmt::format("cannot write {}: {}", path.string(), std::generic_category().message(err)));
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
        const int err = errno;
        ::close(fd);
        throw Error(fmt::format("cannot fsync {}: {}", path.string(), std::generic_category().message(err)));
    }
    ::close(fd);
#else
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
        throw Error(fmt::format("cannot write {}", path.string()));
    }
#endif
}

/// Makes renames in `dir` durable.
RMQ_DECL void sync_directory(const std::filesystem::path& dir) noexcept {
#if defined(RMQ_HAVE_FSYNC)
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)::fsync(fd);
        ::close(fd);
    }
#else
    (void)dir;
#endif
}

RMQ_DECL std::filesystem::path with_suffix(const std::filesystem::path& p, std::string_view suffix) {
    return std::filesystem::path(p.string() + std::string(suffix));
}

RMQ_DECL void rename_file(const std::filesystem::path& from, const std::filesystem::path& to) {
    std::error_code ec;
    std::filesystem::rename(from, to, ec);
    if (ec) {
        throw Error(fmt::format("cannot rename {} to {}: {}", from.string(), to.string(), ec.message()));
    }
}

/// Java's readLocalOffset + readLocalOffsetBak, stricter: the main file, or `.bak` when the main file is
/// missing, empty or corrupt; empty when neither exists. A corrupt main file with a missing, empty or corrupt
/// `.bak` throws rmq::Error naming both files (Java silently starts from nothing, which can skip messages).
RMQ_DECL std::map<MessageQueue, std::int64_t> read_offset_file(const std::filesystem::path& path) {
    const auto bak_path = with_suffix(path, ".bak");
    std::string main_error;
    if (const auto main = read_text_file(path); main && !is_blank(*main)) {
        try {
            return parse_offset_file(*main);
        } catch (const Error& e) {
            main_error = e.what();
        }
    }
    const auto bak = read_text_file(bak_path);
    if (!bak || is_blank(*bak)) {
        if (!main_error.empty()) {
            throw Error(fmt::format("offset file {} is corrupt ({}) and there is no backup {}",
                                    path.string(),
                                    main_error,
                                    bak_path.string()));
        }
        return {};
    }
    try {
        return parse_offset_file(*bak);
    } catch (const Error& e) {
        throw Error(
            fmt::format("offset file {} is {} and its backup {} is corrupt ({})",
                        path.string(),
                        main_error.empty() ? std::string("missing") : fmt::format("corrupt ({})", main_error),
                        bak_path.string(),
                        e.what()));
    }
}

/// Durable replace: write `<path>.tmp` and fsync it; if the current file parses, keep it as `<path>.bak`
/// (itself written through `<path>.bak.tmp` + rename, so a good backup is never replaced by a bad one or
/// half-written); rename `.tmp` over the file (atomic on POSIX); fsync the directory.
RMQ_DECL void write_offset_file(const std::filesystem::path& path,
                                const std::map<MessageQueue, std::int64_t>& table) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
        throw Error(fmt::format("cannot create directory {}: {}", path.parent_path().string(), ec.message()));
    }
    const auto tmp = with_suffix(path, ".tmp");
    write_file_synced(tmp, format_offset_file(table));
    std::optional<std::string> current;
    try {
        current = read_text_file(path);
    } catch (const Error&) {
        current.reset();
    }
    if (current && !is_blank(*current)) {
        bool good = true;
        try {
            (void)parse_offset_file(*current);
        } catch (const Error&) {
            good = false;
        }
        if (good) {
            const auto bak = with_suffix(path, ".bak");
            const auto bak_tmp = with_suffix(path, ".bak.tmp");
            write_file_synced(bak_tmp, *current);
            rename_file(bak_tmp, bak);
        }
    }
    rename_file(tmp, path);
    sync_directory(path.parent_path());
}

}  // namespace rmq::detail
