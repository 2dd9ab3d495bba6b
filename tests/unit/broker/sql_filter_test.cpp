// SQL92 subscriptions on the embedded broker (docs/subscriptions.md): served only with
// enable_property_filter, evaluated over each message's properties at pull time; filtered messages advance
// the pull's next offset as tag filtering does.

#include <string>
#include <utility>

#include "broker_test_support.hpp"

#include <catch2/catch.hpp>

#include <rmq/protocol.hpp>
#include <rmq/transport/in_process.hpp>

using broker_test::Fixture;
using rmq::PullStatus;

namespace {

rmq::BrokerConfig property_filter_on() {
    rmq::BrokerConfig c;
    c.enable_property_filter = true;
    return c;
}

/// Registers `client` of group G with an SQL92 subscription of TopicTest.
void subscribe_sql(Fixture& f, const std::string& expression) {
    rmq::HeartbeatData hb;
    hb.client_id = "c1";
    rmq::ConsumerData cd;
    cd.group_name = "G";
    auto sub = rmq::parse_subscription("TopicTest", expression, rmq::expression_type_sql92);
    sub.sub_version = 1;
    cd.subscription_data_set.push_back(sub);
    hb.consumer_data_set.push_back(cd);
    f.transport->heartbeat(hb);
}

void send_with(Fixture& f, std::string tags, std::string a) {
    rmq::Message m("TopicTest", std::move(tags), "", "body");
    if (!a.empty()) {
        m.set_property("a", a);
    }
    f.transport->send(m, f.mq(0));
}

}  // namespace

TEST_CASE("broker: SQL92 is refused unless enable_property_filter is on") {
    Fixture f;  // Java's default: off
    subscribe_sql(f, "a > 1");
    send_with(f, "TagA", "5");
    const auto r = f.pull(f.args(0, 0));
    CHECK(r.code() == rmq::response_code::system_error);
    CHECK_THAT(r.remark(), Catch::Contains("SQL92"));
}

TEST_CASE("broker: an SQL92 subscription returns only the messages whose properties match") {
    Fixture f(property_filter_on());
    subscribe_sql(f, "a > 5 AND TAGS <> 'TagX'");
    send_with(f, "TagA", "1");    // 0: a too small
    send_with(f, "TagA", "9");    // 1: match
    send_with(f, "TagA", "");     // 2: no property a (NULL)
    send_with(f, "TagX", "10");   // 3: excluded by the TAGS property
    send_with(f, "TagB", "abc");  // 4: not a number: evaluation fails
    send_with(f, "TagB", "6");    // 5: match
    const auto r = f.pull(f.args(0, 0));
    REQUIRE(r.ok());
    CHECK(r.value().status == PullStatus::Found);
    REQUIRE(r.value().msg_found_list.size() == 2);
    CHECK(r.value().msg_found_list[0].queue_offset() == 1);
    CHECK(r.value().msg_found_list[1].queue_offset() == 5);
    CHECK(r.value().next_begin_offset == 6);

    send_with(f, "TagA", "2");
    const auto none = f.pull(f.args(0, 6));
    REQUIRE(none.ok());
    CHECK(none.value().status == PullStatus::NoMatchedMsg);
    CHECK(none.value().next_begin_offset == 7);  // the filtered message is passed over
}

TEST_CASE("broker: an SQL92 subscription in the pull itself is parsed, and refused when bad") {
    Fixture f(property_filter_on());
    f.subscribe("G", "c1", "TopicTest", "*");
    send_with(f, "TagA", "1");
    send_with(f, "TagA", "2");
    auto a = f.args(0, 0, rmq::pull_sys_flag::subscription);
    a.expression_type = std::string(rmq::expression_type_sql92);
    a.subscription = "a IN ('2')";
    const auto own = f.pull(a);
    REQUIRE(own.ok());
    REQUIRE(own.value().msg_found_list.size() == 1);
    CHECK(own.value().msg_found_list[0].queue_offset() == 1);

    a.subscription = "a IN (2)";
    const auto bad = f.pull(a);
    CHECK(bad.code() == rmq::response_code::subscription_parse_failed);
    CHECK_THAT(bad.remark(), Catch::Contains("Invalid MessageSelector"));
}
