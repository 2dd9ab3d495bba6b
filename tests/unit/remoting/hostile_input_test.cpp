// Inputs a broken or hostile broker / NameServer can send: every decoder must answer them with its typed
// exception, within bounded memory and stack.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/remoting/bodies.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/remoting/compression.hpp>
#include <rmq/remoting/message_codec.hpp>

#include <rmq/detail/wire/bytes.hpp>

namespace {

using rmq::remoting::CodecError;
using rmq::remoting::CompressionType;

/// `depth` nested arrays: deep enough to overflow any per-level recursion.
std::string nested_arrays(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

constexpr std::size_t deep = 100000;

/// A JSON-serialized frame payload (after the length field) with `header` as its header.
std::string json_payload(const std::string& header) {
    std::string out;
    const auto n = static_cast<std::uint32_t>(header.size());
    out.push_back(static_cast<char>(n >> 24));
    out.push_back(static_cast<char>((n >> 16) & 0xFF));
    out.push_back(static_cast<char>((n >> 8) & 0xFF));
    out.push_back(static_cast<char>(n & 0xFF));
    return out + header;
}

rmq::remoting::Command decode_json_header(const std::string& header) {
    const std::string payload = json_payload(header);
    return rmq::remoting::decode_payload(rmq::detail::as_bytes(payload));
}

}  // namespace

TEST_CASE("hostile input: deeply nested JSON is a CodecError in every JSON decoder", "[remoting][hostile]") {
    using namespace rmq::remoting;
    const std::string d = nested_arrays(deep);
    const std::vector<std::pair<std::string, std::function<void(const std::string&)>>> decoders{
        {"header code",
         [](const std::string& v) {
             decode_json_header(R"({"code":)" + v + "}");
         }},
        {"header extFields",
         [](const std::string& v) {
             decode_json_header(R"({"code":0,"extFields":{"k":)" + v + "}}");
         }},
        {"route",
         [](const std::string& v) {
             decode_topic_route_data(R"({"queueDatas":[{"brokerName":)" + v + "}]}");
         }},
        {"consumer list",
         [](const std::string& v) {
             decode_consumer_list(R"({"consumerIdList":[)" + v + "]}");
         }},
        {"lock batch request",
         [](const std::string& v) {
             decode_lock_batch_request(R"({"mqSet":[)" + v + "]}");
         }},
        {"lock batch response",
         [](const std::string& v) {
             decode_lock_batch_response(R"({"lockOKMQSet":[)" + v + "]}");
         }},
        {"heartbeat",
         [](const std::string& v) {
             decode_heartbeat_data(R"({"clientID":)" + v + "}");
         }},
        {"reset offset list",
         [](const std::string& v) {
             decode_reset_offset_body(R"({"offsetTable":[)" + v + "]}");
         }},
        {"reset offset keys",
         [](const std::string& v) {
             decode_reset_offset_body(R"({"offsetTable":{)" + v + ":1}}");
         }},
    };
    for (const auto& [name, decode] : decoders) {
        INFO(name);
        CHECK_THROWS_AS(decode(d), CodecError);
    }
}

TEST_CASE("hostile input: nesting up to the documented depth still decodes", "[remoting][hostile]") {
    // The header and extFields are two levels; a value may nest 62 more.
    const std::string inner = nested_arrays(62);
    const auto cmd = decode_json_header(R"({"code":0,"extFields":{"k":)" + inner + "}}");
    CHECK(cmd.field("k") == std::optional<std::string_view>(inner));
    CHECK_THROWS_WITH(decode_json_header(R"({"code":0,"extFields":{"k":)" + nested_arrays(63) + "}}"),
                      Catch::Contains("deeper than 64"));
}

TEST_CASE("hostile input: error messages describe received values instead of copying them",
          "[remoting][hostile]") {
    const std::string big(1 << 20, 'x');
    try {
        decode_json_header(R"({"code":")" + big + R"("})");
        FAIL("no exception");
    } catch (const CodecError& e) {
        CHECK(std::string_view(e.what()).size() < 300);
    }
    try {
        rmq::remoting::decode_consumer_list(R"({"consumerIdList":[[)" + std::string(100000, '1') + "]]}");
        FAIL("no exception");
    } catch (const CodecError& e) {
        CHECK(std::string_view(e.what()).size() < 300);
    }
}

TEST_CASE("hostile input: absurd queue counts in a route are rejected before allocating",
          "[remoting][hostile]") {
    using namespace rmq::remoting;
    const std::string addrs =
        R"("brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:10911"},"brokerName":"b","cluster":"c"}])";
    auto route_with = [&](const std::string& read, const std::string& write) {
        return "{" + addrs + R"(,"queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":)" + read +
               R"(,"topicSysFlag":0,"writeQueueNums":)" + write + "}]}";
    };
    CHECK_THROWS_WITH(decode_topic_route_data(route_with("2147483647", "4")),
                      Catch::Contains("readQueueNums"));
    CHECK_THROWS_WITH(decode_topic_route_data(route_with("4", "2147483647")),
                      Catch::Contains("writeQueueNums"));
    CHECK(to_topic_route("T", decode_topic_route_data(route_with("65536", "8"))).read_queues.size() == 65536);

    // A hand-made TopicRouteData goes through the same checks.
    TopicRouteData data = decode_topic_route_data(route_with("4", "4"));
    data.queue_datas.at(0).read_queue_nums = 2147483647;
    CHECK_THROWS_AS(to_topic_route("T", data), CodecError);
    // The total over many brokers is bounded as well.
    data.queue_datas.assign(5, data.queue_datas.at(0));
    for (auto& qd : data.queue_datas) {
        qd.read_queue_nums = max_route_queue_nums;
        qd.write_queue_nums = 1;
    }
    CHECK_THROWS_WITH(to_topic_route("T", data), Catch::Contains("in all"));
}

TEST_CASE("hostile input: orderTopicConf counts neither overflow nor allocate without bound",
          "[remoting][hostile]") {
    using namespace rmq::remoting;
    TopicRouteData data;
    data.order_topic_conf = "broker-a:4;broker-b:99999999999";  // wraps a 32-bit counter
    CHECK_THROWS_WITH(to_topic_route("T", data), Catch::Contains("more than 65536"));
    data.order_topic_conf = "broker-a:2147483647";
    CHECK_THROWS_AS(to_topic_route("T", data), CodecError);
    CHECK_THROWS_AS(decode_topic_route_data(R"({"orderTopicConf":"b:4294967300"})"), CodecError);
    data.order_topic_conf = "broker-a:65536;broker-b:2";
    CHECK(to_topic_route("T", data).write_queues.size() == 65538);
}

TEST_CASE("hostile input: a decompression bomb is capped before it is inflated", "[remoting][hostile]") {
    for (const auto type : {CompressionType::Zlib, CompressionType::Lz4, CompressionType::Zstd}) {
        if (!rmq::remoting::compression_supported(type)) {
            continue;
        }
        INFO(rmq::remoting::compression_name(type));
        const std::string bomb = rmq::remoting::compress(std::string(32U << 20, 'a'), type);
        REQUIRE(bomb.size() < (1U << 20));
        CHECK_THROWS_WITH(rmq::remoting::decompress(bomb, type, 1U << 20),
                          Catch::Contains("more than 1048576"));
        CHECK(rmq::remoting::decompress(bomb, type, 32U << 20).size() == (32U << 20));
    }
}

TEST_CASE("hostile input: a pull body's total decompressed size is bounded, the rest is dropped as damaged",
          "[remoting][hostile]") {
    using namespace rmq::remoting;
    // Ten records of 1 MiB bodies compressed to a few KB each.
    const std::string body(1U << 20, 'z');
    std::string pull;
    for (int i = 0; i < 10; ++i) {
        rmq::MessageExt m;
        m.set_topic("T");
        m.set_queue_offset(i);
        m.set_body(compress(body, CompressionType::Zlib));
        m.set_sys_flag(message_sys_flag::compressed |
                       (static_cast<std::int32_t>(CompressionType::Zlib) << 8));
        m.set_born_host("127.0.0.1:1");
        m.set_store_host("127.0.0.1:2");
        pull += encode_message(m);
    }
    MessageDecodeOptions options;
    options.max_decompressed_total = 3U << 20;  // three records' worth
    MessageDecodeReport report;
    const auto msgs = decode_messages(rmq::detail::as_bytes(pull), &report, options);
    REQUIRE(msgs.size() == 3);
    CHECK(msgs.at(2).body() == body);
    CHECK(report.damaged_records == 7);
    CHECK_THAT(report.error, Catch::Contains("record 3") && Catch::Contains("more than"));

    // The default admits the whole body.
    CHECK(decode_messages(rmq::detail::as_bytes(pull), &report).size() == 10);
    CHECK(report.damaged_records == 0);
    CHECK(MessageDecodeOptions{}.max_decompressed_total == max_decompressed_pull_body);
}
