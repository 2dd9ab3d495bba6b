// SQL92 subscriptions end to end on the embedded broker: only matching messages reach the listener,
// filtered ones still advance the committed offset (as tag filtering does), bad expressions throw at
// subscribe, and the heartbeat carries expressionType SQL92.

#include <string>
#include <vector>

#include "consumer_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/message_selector.hpp>

using consumer_test::eventually;
using consumer_test::fast_config;
using consumer_test::PushConsumer;
using consumer_test::Recorder;

namespace {

rmq::BrokerConfig property_filter_on() {
    rmq::BrokerConfig c;
    c.enable_property_filter = true;
    return c;
}

std::int64_t committed_sum(rmq::InProcessBroker& broker, const std::string& group, const std::string& topic) {
    std::int64_t sum = 0;
    for (int q = 0; q < 2; ++q) {
        sum += broker.consumer_offset(group, broker.queue(topic, q)).value_or(0);
    }
    return sum;
}

/// 20 messages over 2 queues; property a = i; region = eu for even i, us for odd i.
void produce_numbered(rmq::InProcessBroker& broker, const std::string& topic) {
    auto tr = broker.connect();
    for (int i = 0; i < 20; ++i) {
        rmq::Message m(topic, "TagA", "m" + std::to_string(i));
        m.set_property("a", std::to_string(i));
        m.set_property("region", i % 2 == 0 ? "eu" : "us");
        (void)tr.send(m, broker.queue(topic, i % 2));
    }
}

}  // namespace

TEST_CASE("SQL92 subscription delivers only matching messages and still advances the offset",
          "[consumer][sql]") {
    rmq::InProcessBroker broker{property_filter_on()};
    broker.create_topic("Sql", 2);
    produce_numbered(broker, "Sql");

    Recorder rec;
    std::vector<std::string> seen;
    PushConsumer consumer{broker.connect(), fast_config("cg_sql")};
    consumer.subscribe("Sql", rmq::MessageSelector::by_sql("a BETWEEN 5 AND 14 AND region = 'eu'"));
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        rec.update([&] {
            for (const auto& m : msgs) {
                seen.emplace_back(m.body());
            }
        });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return seen.size() >= 5; }));
    // Every queue's offset reaches its end, filtered messages included.
    REQUIRE(eventually([&] { return committed_sum(broker, "cg_sql", "Sql") == 20; }));
    const auto members = broker.group_members("cg_sql");
    consumer.shutdown();
    std::vector<std::string> got;
    rec.update([&] { got = seen; });
    std::sort(got.begin(), got.end());
    CHECK(got == std::vector<std::string>{"m10", "m12", "m14", "m6", "m8"});

    // The heartbeat carried the expression type (SubscriptionData.expressionType) and no tags.
    REQUIRE(members.size() == 1);
    const auto& subs = members[0].consumer_data.subscription_data_set;
    const auto it = std::find_if(subs.begin(), subs.end(), [](const auto& s) { return s.topic == "Sql"; });
    REQUIRE(it != subs.end());
    CHECK(it->expression_type == "SQL92");
    CHECK(it->sub_string == "a BETWEEN 5 AND 14 AND region = 'eu'");
    CHECK(it->tags_set.empty());
    CHECK_FALSE(it->class_filter_mode);
}

TEST_CASE("a bad SQL92 expression throws InvalidArgument at subscribe", "[consumer][sql]") {
    rmq::InProcessBroker broker{property_filter_on()};
    broker.create_topic("Sql", 2);
    PushConsumer consumer{broker.connect(), fast_config("cg_sql_bad")};
    CHECK_THROWS_AS(consumer.subscribe("Sql", rmq::MessageSelector::by_sql("a >")), rmq::InvalidArgument);
    CHECK_THROWS_WITH(consumer.subscribe("Sql", rmq::MessageSelector::by_sql("a > 'x'")),
                      Catch::Contains("Invalid MessageSelector"));
    CHECK_THROWS_AS(consumer.subscribe("Sql", rmq::MessageSelector::by_sql("")), rmq::InvalidArgument);
    // by_tag is the tag subscribe.
    CHECK_NOTHROW(consumer.subscribe("Sql", rmq::MessageSelector::by_tag("TagA || TagB")));
    CHECK_THROWS_AS(consumer.subscribe("Sql", rmq::MessageSelector::by_tag("||")), rmq::InvalidArgument);
}

TEST_CASE("MessageSelector carries its type", "[consumer][sql]") {
    const auto sql = rmq::MessageSelector::by_sql("a > 1");
    CHECK(sql.expression_type() == "SQL92");
    CHECK(sql.expression() == "a > 1");
    const auto tag = rmq::MessageSelector::by_tag("*");
    CHECK(tag.expression_type() == "TAG");
    CHECK(tag.expression() == "*");
    CHECK(sql != tag);
}
