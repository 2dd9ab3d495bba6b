#pragma once

/// @file detail/net/frame_reader.hpp
/// The read side of a RemotingCommand stream: one reusable buffer that a socket read fills as far as it
/// can, and that yields every complete frame it holds. One `recv` then brings many answers (a burst of
/// asynchronous sends) instead of two per frame (its length, then the rest). A length above the limit is
/// refused as soon as its four bytes are in, before anything of the frame is buffered; the buffer grows only
/// to the largest frame in flight (at most the limit) and goes back to its first size once empty.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>

#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/command.hpp>

namespace rmq::detail {

/// Not thread-safe: one connection's io thread uses it.
class FrameReader {
public:
    static constexpr std::size_t default_capacity = 64 * 1024;
    /// Less room than this after the buffered bytes: they move to the front first.
    static constexpr std::size_t min_read = 4096;

    /// `max_frame_length`: the largest frame accepted, its 4-byte length field included.
    explicit FrameReader(std::size_t max_frame_length, std::size_t capacity = default_capacity)
        : max_frame_length_(max_frame_length)
        , base_capacity_(std::max<std::size_t>(capacity, 16))
        , buf_(base_capacity_) {}

    /// Where the next read goes, once next() said no complete frame is left: never empty. Room for the rest
    /// of a frame whose length is known, else what is free after the bytes not yet taken.
    [[nodiscard]] std::span<std::byte> prepare() {
        if (begin_ == end_) {
            begin_ = end_ = 0;
            if (buf_.size() > base_capacity_) {
                std::vector<std::byte>(base_capacity_).swap(buf_);  // a large frame's room is given back
            }
        }
        const std::size_t want = std::max(needed_, base_capacity_);
        if (buf_.size() < want) {
            compact();
            buf_.resize(want);
        }
        // Moving the partial frame to the front costs a copy of it: only when the room after it is short.
        const std::size_t have = end_ - begin_;
        const std::size_t missing = needed_ > have ? needed_ - have : 0;
        if (buf_.size() - end_ < std::max({missing, min_read, std::size_t{1}})) {
            compact();
        }
        return std::span<std::byte>(buf_).subspan(end_);
    }

    /// `n` bytes were read into the span of the last prepare().
    void commit(std::size_t n) { end_ += n; }

    /// The payload (after the length field) of the next complete frame, valid until the next prepare(); none
    /// when no complete frame is buffered. Throws rmq::remoting::CodecError when a length field is below 4
    /// or its frame above the limit.
    [[nodiscard]] std::optional<std::span<const std::byte>> next() {
        const std::size_t have = end_ - begin_;
        if (have < 4) {
            needed_ = 0;
            return std::nullopt;
        }
        const auto unread = std::span<const std::byte>(buf_).subspan(begin_, have);
        const std::size_t payload = remoting::frame_payload_length(unread.first(4));
        if (payload + 4 > max_frame_length_) {
            throw remoting::CodecError(
                fmt::format("frame of {} bytes above the {} byte limit", payload + 4, max_frame_length_));
        }
        if (have < payload + 4) {
            needed_ = payload + 4;
            return std::nullopt;
        }
        needed_ = 0;
        begin_ += payload + 4;
        return unread.subspan(4, payload);
    }

    /// The bytes read and not yet taken as a frame (the start of a refused length field, say).
    [[nodiscard]] std::span<const std::byte> unread() const {
        return std::span<const std::byte>(buf_).subspan(begin_, end_ - begin_);
    }

    /// The buffer's size now (what it holds in memory).
    [[nodiscard]] std::size_t capacity() const noexcept { return buf_.size(); }

    /// Forgets everything buffered (a new connection starts a new stream).
    void reset() {
        begin_ = end_ = needed_ = 0;
        if (buf_.size() > base_capacity_) {
            std::vector<std::byte>(base_capacity_).swap(buf_);
        }
    }

private:
    void compact() {
        if (begin_ > 0) {
            std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
            end_ -= begin_;
            begin_ = 0;
        }
    }

    const std::size_t max_frame_length_;
    const std::size_t base_capacity_;
    std::vector<std::byte> buf_;
    std::size_t begin_ = 0;   // the first byte not yet taken
    std::size_t end_ = 0;     // one past the last byte read
    std::size_t needed_ = 0;  // the size of the partial frame at begin_, once its length is known
};

}  // namespace rmq::detail
