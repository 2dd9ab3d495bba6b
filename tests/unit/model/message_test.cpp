#include <algorithm>
#include <array>
#include <cstddef>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>

TEST_CASE("Message has Java's constructor shape and accessors", "[model][message]") {
    rmq::Message msg("TopicTest", "TagA", "KEY1", "Hello RocketMQ");
    CHECK(msg.topic() == "TopicTest");
    CHECK(msg.tags() == "TagA");
    CHECK(msg.keys() == "KEY1");
    CHECK(msg.body() == "Hello RocketMQ");
    CHECK(msg.property("TAGS") == std::optional<std::string>("TagA"));
    CHECK_FALSE(msg.property("NOPE").has_value());
    msg.set_property("a", "b");
    CHECK(msg.property("a") == std::optional<std::string>("b"));
    msg.clear_property("a");
    CHECK_FALSE(msg.has_property("a"));
    CHECK(msg.delay_time_level() == 0);
    msg.set_delay_time_level(3);
    CHECK(msg.delay_time_level() == 3);

    const std::array<std::byte, 3> raw{std::byte{0}, std::byte{0xff}, std::byte{7}};
    const rmq::Message binary("T", "", "", std::span<const std::byte>(raw));
    CHECK(binary.body().size() == 3);
    CHECK(binary.body_bytes()[1] == std::byte{0xff});
    CHECK_FALSE(binary.has_property("TAGS"));  // empty tags set nothing, as Java's null
}

TEST_CASE("MessageExt msg_id prefers UNIQ_KEY, offset_msg_id is the broker id", "[model][message]") {
    rmq::MessageExt ext("T", "", "", "body");
    ext.set_offset_msg_id("C0A8000A00002A9F0000000000000000");
    CHECK(ext.msg_id() == "C0A8000A00002A9F0000000000000000");
    ext.set_property(rmq::property::uniq_client_message_id_keyidx, "0A0000011F9000000000000000000001");
    CHECK(ext.msg_id() == "0A0000011F9000000000000000000001");
    CHECK(ext.offset_msg_id() == "C0A8000A00002A9F0000000000000000");
}

TEST_CASE("MessageExt copied with room equals a plain copy and takes three properties without a reallocation",
          "[model][message]") {
    rmq::MessageExt src("TopicTest", "TagA", "KEY1", "body");
    src.set_flag(7);
    src.set_transaction_id("tx");
    src.set_broker_name("broker-a");
    src.set_queue_id(3);
    src.set_store_size(200);
    src.set_queue_offset(42);
    src.set_sys_flag(4);
    src.set_born_timestamp(1000);
    src.set_born_host("10.0.0.1:5000");
    src.set_store_timestamp(2000);
    src.set_store_host("10.0.0.2:10911");
    src.set_commit_log_offset(4096);
    src.set_body_crc(99);
    src.set_reconsume_times(2);
    src.set_prepared_transaction_offset(8);
    src.set_offset_msg_id("0A0000022AA70000000000001000");

    const rmq::MessageExt copy(src, 3);
    CHECK(copy == src);
    CHECK(copy.transaction_id() == "tx");  // Message's own fields, not only MessageExt's
    CHECK(copy.flag() == 7);

    // The room is the copy's: the three properties a consumer stamps go in without moving its entries.
    rmq::MessageExt stamped(src, 3);
    const auto* entries = &*stamped.properties().begin();
    stamped.set_property(rmq::property::consume_start_timestamp, "1");
    stamped.set_property({{rmq::property::max_offset, "9"}, {rmq::property::min_offset, "0"}});
    CHECK(&*stamped.properties().begin() == entries);
    CHECK(stamped.properties().size() == src.properties().size() + 3);
}

TEST_CASE("MessageQueue prints exactly Java's toString", "[model][message_queue]") {
    const rmq::MessageQueue mq{"TopicTest", "broker-a", 3};
    CHECK(fmt::format("{}", mq) == "MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=3]");
}

TEST_CASE("MessageQueue orders like Java's compareTo and hashes", "[model][message_queue]") {
    std::vector<rmq::MessageQueue> mqs{{"T", "broker-b", 0},
                                       {"T", "broker-a", 10},
                                       {"T", "broker-a", 9},
                                       {"S", "broker-z", 0},
                                       {"T", "broker-a", -1}};
    std::sort(mqs.begin(), mqs.end());
    const std::vector<rmq::MessageQueue> expected{{"S", "broker-z", 0},
                                                  {"T", "broker-a", -1},
                                                  {"T", "broker-a", 9},
                                                  {"T", "broker-a", 10},
                                                  {"T", "broker-b", 0}};
    CHECK(mqs == expected);
    const std::unordered_set<rmq::MessageQueue> set(mqs.begin(), mqs.end());
    CHECK(set.size() == 5);
    CHECK(set.count({"T", "broker-a", 9}) == 1);
}

TEST_CASE("MessageQueue compares strings by UTF-16 code units like Java", "[model][message_queue]") {
    // U+FF61 (3-byte UTF-8, UTF-16 0xFF61) sorts after U+1F600 (4-byte UTF-8, UTF-16 0xD83D...) in Java,
    // although its UTF-8 bytes sort first.
    const rmq::MessageQueue emoji{"\xF0\x9F\x98\x80", "b", 0};
    const rmq::MessageQueue halfwidth{"\xEF\xBD\xA1", "b", 0};
    CHECK(emoji < halfwidth);
    CHECK(rmq::MessageQueue{"a", "b", 0} < rmq::MessageQueue{"ab", "b", 0});
    CHECK(rmq::MessageQueue{"B", "b", 0} < rmq::MessageQueue{"a", "b", 0});
    // After an equal prefix that ends inside or after a multi-byte character, the same UTF-16 order holds.
    CHECK(rmq::MessageQueue{"t\xC3\xA9\xF0\x9F\x98\x80", "b", 0} <
          rmq::MessageQueue{"t\xC3\xA9\xEF\xBD\xA1", "b", 0});
    CHECK(rmq::MessageQueue{"\xF0\x9F\x98\x80", "b", 0} < rmq::MessageQueue{"\xF0\x9F\x98\x81", "b", 0});
    CHECK(rmq::MessageQueue{"\xF0\x9F\x98\x80", "b", 0} < rmq::MessageQueue{"\xF0\x9F\x98\x80x", "b", 0});
    const bool equal_sorts_equal =
        (rmq::MessageQueue{"T\xC3\xA9", "b", 1} <=> rmq::MessageQueue{"T\xC3\xA9", "b", 1}) == 0;
    CHECK(equal_sorts_equal);
}
