// The connection's frame reader: one buffer that a read fills, yielding every complete frame it holds;
// frames split anywhere across reads; a length above the limit refused with the codec's typed error; the
// buffer bounded by the largest frame and given back once empty.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/command.hpp>

#include <rmq/detail/net/frame_reader.hpp>

namespace {

using rmq::remoting::Command;

std::string frame_of(int opaque, std::size_t body) {
    Command c;
    c.code = 0;
    c.opaque = opaque;
    c.flag = rmq::remoting::command_flag::response;
    c.remark = "r" + std::to_string(opaque);
    c.body = std::string(body, static_cast<char>('a' + opaque % 26));
    return rmq::remoting::encode(c);
}

std::string length_field(std::uint32_t len) {
    std::string bytes(4, '\0');
    bytes[0] = static_cast<char>(len >> 24);
    bytes[1] = static_cast<char>((len >> 16) & 0xFF);
    bytes[2] = static_cast<char>((len >> 8) & 0xFF);
    bytes[3] = static_cast<char>(len & 0xFF);
    return bytes;
}

/// Feeds `bytes` in reads of at most `chunk` bytes (and at most what prepare() offers), decoding every frame
/// the reader yields after each read.
std::vector<Command> feed(rmq::detail::FrameReader& reader, const std::string& bytes, std::size_t chunk) {
    std::vector<Command> out;
    std::size_t at = 0;
    while (at < bytes.size()) {
        const std::span<std::byte> room = reader.prepare();
        REQUIRE_FALSE(room.empty());
        const std::size_t n = std::min({chunk, room.size(), bytes.size() - at});
        std::memcpy(room.data(), bytes.data() + at, n);
        reader.commit(n);
        at += n;
        while (const auto payload = reader.next()) {
            out.push_back(rmq::remoting::decode_payload(*payload));
        }
    }
    return out;
}

}  // namespace

TEST_CASE("the frame reader yields every frame of one read", "[net][frame_reader]") {
    rmq::detail::FrameReader reader(rmq::remoting::max_frame_length);
    std::string bytes;
    for (int i = 0; i < 50; ++i) {
        bytes += frame_of(i, 100);
    }
    REQUIRE(bytes.size() < reader.prepare().size());  // all in one read
    const auto got = feed(reader, bytes, bytes.size());
    REQUIRE(got.size() == 50);
    for (int i = 0; i < 50; ++i) {
        CHECK(got[static_cast<std::size_t>(i)].opaque == i);
        CHECK(got[static_cast<std::size_t>(i)].remark == "r" + std::to_string(i));
        CHECK(got[static_cast<std::size_t>(i)].body == std::string(100, static_cast<char>('a' + i % 26)));
    }
    CHECK(reader.unread().empty());
}

TEST_CASE("the frame reader joins frames split across reads at every byte boundary", "[net][frame_reader]") {
    const std::string bytes = frame_of(1, 37) + frame_of(2, 0) + frame_of(3, 5);
    for (std::size_t cut = 1; cut < bytes.size(); ++cut) {
        CAPTURE(cut);
        rmq::detail::FrameReader reader(rmq::remoting::max_frame_length, 16);
        std::vector<Command> got;
        for (const std::string& part : {bytes.substr(0, cut), bytes.substr(cut)}) {
            const auto more = feed(reader, part, part.size());
            got.insert(got.end(), more.begin(), more.end());
        }
        REQUIRE(got.size() == 3);
        CHECK(got[0].opaque == 1);
        CHECK(got[0].body == std::string(37, 'b'));
        CHECK(got[1].opaque == 2);
        CHECK(got[2].body == std::string(5, 'd'));
    }
    // and one byte per read, through a buffer smaller than a frame
    rmq::detail::FrameReader reader(rmq::remoting::max_frame_length, 16);
    const auto got = feed(reader, bytes, 1);
    REQUIRE(got.size() == 3);
    CHECK(got[2].remark == "r3");
}

TEST_CASE("the frame reader refuses a length above its limit with a codec error, before its body",
          "[net][frame_reader]") {
    rmq::detail::FrameReader reader(1024, 64);
    const std::string ok = frame_of(7, 10);
    // a frame of 1025 bytes (length field 1021): one above the limit; only its length field is read
    const std::string bytes = ok + length_field(1021);
    std::vector<Command> got;
    try {
        got = feed(reader, bytes, 3);
        FAIL("expected the frame of 1025 bytes to be refused");
    } catch (const rmq::remoting::CodecError& e) {
        CHECK(std::string(e.what()).find("1025") != std::string::npos);
    }
    CHECK(reader.capacity() < 1021);  // nothing of the refused frame was made room for
    // exactly at the limit is accepted
    rmq::detail::FrameReader exact(ok.size(), 16);
    CHECK(feed(exact, ok + ok, 5).size() == 2);
    rmq::detail::FrameReader below(ok.size() - 1, 16);
    CHECK_THROWS_AS(feed(below, ok, 5), rmq::remoting::CodecError);
    // a length field below 4 (no room for the header length) is refused as today
    rmq::detail::FrameReader tiny(1024, 16);
    CHECK_THROWS_AS(feed(tiny, length_field(3) + "abc", 7), rmq::remoting::CodecError);
}

TEST_CASE("the frame reader grows only to the largest frame and gives the room back once empty",
          "[net][frame_reader]") {
    rmq::detail::FrameReader reader(rmq::remoting::max_frame_length, 256);
    std::string small;
    std::string first_half;
    for (int i = 0; i < 200; ++i) {
        small += frame_of(i, 50);
        if (i == 99) {
            first_half = small;
        }
    }
    const std::string big = frame_of(1000, 10'000);
    // many small frames in reads of odd sizes: the buffer never grows
    for (int round = 0; round < 20; ++round) {
        CHECK(feed(reader, small, 97 + static_cast<std::size_t>(round)).size() == 200);
        CHECK(reader.capacity() == 256);
    }
    // a large frame: room for it (not more), then back to the first size
    const auto got = feed(reader, first_half + big, 300);
    CHECK(got.size() == 101);  // 100 small ones and the large one
    CHECK(got.back().body.size() == 10'000);
    CHECK(reader.capacity() <= big.size() + 256);
    (void)reader.prepare();
    CHECK(reader.capacity() == 256);
}
