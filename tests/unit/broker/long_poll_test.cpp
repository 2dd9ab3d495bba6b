// The held-pull table alone (detail/broker/long_poll.hpp): which held pulls an arrival, a deadline or the
// periodic hold check wakes.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/message.hpp>
#include <rmq/subscription.hpp>

#include <rmq/detail/broker/long_poll.hpp>
#include <rmq/detail/broker/store.hpp>

namespace {

rmq::detail::HeldPull held(std::int64_t offset, std::int64_t deadline, const std::string& expression) {
    rmq::detail::HeldPull h;
    h.args.consumer_group = "G";
    h.args.mq = rmq::MessageQueue{"T", "broker-a", 0};
    h.args.queue_offset = offset;
    h.deadline = deadline;
    h.filter = rmq::parse_subscription("T", expression);
    return h;
}

/// Appends one message with `tags` to T queue 0; returns its tags code.
std::int64_t append(rmq::detail::MessageStore& store, const std::string& tags) {
    rmq::MessageExt m;
    m.set_topic("T");
    m.set_queue_id(0);
    m.set_tags(tags);
    const std::int64_t code = rmq::detail::tags_code_of(m);
    store.append(std::move(m), code, 0);
    return code;
}

}  // namespace

TEST_CASE("broker long poll: an arrival wakes the held pulls it matches and that it is beyond") {
    rmq::detail::MessageStore store("broker-a");
    rmq::detail::HeldPulls table(5000);
    table.start(0);
    table.hold(held(0, 15000, "TagA"));
    table.hold(held(0, 15000, "TagB"));
    table.hold(held(5, 15000, "*"));
    CHECK(table.count() == 3);
    const std::int64_t code = append(store, "TagA");
    const auto woken = table.take_arrived("T", 0, code, store);
    REQUIRE(woken.size() == 1);
    CHECK(woken[0].filter->sub_string == "TagA");
    CHECK(table.count() == 2);
    CHECK(table.take_arrived("T", 1, code, store).empty());  // another queue holds nothing
}

TEST_CASE("broker long poll: deadlines and the periodic check wake held pulls") {
    rmq::detail::MessageStore store("broker-a");
    rmq::detail::HeldPulls table(5000);
    table.start(0);
    table.hold(held(0, 3000, "TagB"));
    table.hold(held(0, 15000, "TagB"));
    table.hold(held(1, 15000, "TagB"));
    CHECK(table.next_deadline() == 3000);
    append(store, "TagA");  // no match: an arrival would not wake them
    CHECK(table.take_due(2999, store).empty());
    CHECK(table.take_due(3000, store).size() == 1);    // the deadline
    CHECK(table.next_deadline() == 5000);              // the periodic check
    const auto checked = table.take_due(5000, store);  // the queue grew past offset 0 only
    REQUIRE(checked.size() == 1);
    CHECK(checked[0].args.queue_offset == 0);
    CHECK(table.count() == 1);
    CHECK(table.next_deadline() == 10000);
    CHECK(table.take_all().size() == 1);
    CHECK_FALSE(table.next_deadline().has_value());
}
