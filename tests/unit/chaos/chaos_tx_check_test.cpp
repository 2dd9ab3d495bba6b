// The transactional chaos checker (tests/support/chaos_tx_check.hpp) on hand-made logs: the plan by seq, and
// every figure and verdict the real-cluster run (tests/realcluster/chaos_tx_test.cpp) asserts on.

#include <cstdint>
#include <string>
#include <vector>

#include "chaos_tx_check.hpp"

#include <catch2/catch.hpp>

namespace chaos_tx_check_test {

namespace tx = rmq_chaos::tx;

/// A producer's log for `seq`: attempted, stored (its local transaction ran), ended (END_TRANSACTION sent).
void produce(tx::Input& in, std::int64_t seq, bool stored = true, bool ended = true) {
    in.events.push_back({"attempt", seq});
    if (stored) {
        in.events.push_back({"executing", seq});
    }
    if (stored && ended) {
        in.events.push_back({"ended", seq});
    }
}

void deliver(tx::Input& in, std::int64_t seq, const std::string& id = {}) {
    in.deliveries.push_back({seq, id.empty() ? "id" + std::to_string(seq) : id});
}

}  // namespace chaos_tx_check_test

using namespace chaos_tx_check_test;  // NOLINT(google-build-using-namespace): this file's own helpers

TEST_CASE("chaos tx plan: seq mod 4 is commit, rollback, unknown then commit, unknown then rollback",
          "[chaos]") {
    CHECK((tx::plan_for(4).local == tx::Local::Commit && tx::plan_for(4).final == tx::Final::Commit));
    CHECK((tx::plan_for(5).local == tx::Local::Rollback && tx::plan_for(5).final == tx::Final::Rollback));
    CHECK((tx::plan_for(6).local == tx::Local::Unknown && tx::plan_for(6).final == tx::Final::Commit));
    CHECK((tx::plan_for(7).local == tx::Local::Unknown && tx::plan_for(7).final == tx::Final::Rollback));
}

TEST_CASE("chaos tx check: every stored commit delivered and nothing rolled back is a pass", "[chaos]") {
    tx::Input in;
    for (std::int64_t seq = 0; seq < 8; ++seq) {
        produce(in, seq);
    }
    for (const std::int64_t seq : {0, 2, 4, 6}) {
        deliver(in, seq);
    }
    const auto r = tx::check(in);
    CHECK(r.ok());
    CHECK(r.attempted == 8);
    CHECK(r.stored == 8);
    CHECK(r.must_deliver == 4);
    CHECK(r.delivered == 4);
    CHECK(r.orphaned == 0);
}

TEST_CASE("chaos tx check: a stored message meant to be committed and never delivered is lost", "[chaos]") {
    tx::Input in;
    produce(in, 0);
    produce(in, 2, true, false);  // orphaned: its check-back must commit it
    deliver(in, 0);
    const auto r = tx::check(in);
    CHECK_FALSE(r.ok());
    CHECK(r.lost == std::vector<std::int64_t>{2});
    CHECK(r.orphaned == 1);
}

TEST_CASE("chaos tx check: a rolled-back message delivered fails, orphaned or not", "[chaos]") {
    tx::Input in;
    produce(in, 1);
    produce(in, 3, true, false);
    deliver(in, 1);
    deliver(in, 3);
    const auto r = tx::check(in);
    CHECK_FALSE(r.ok());
    CHECK(r.rolled_back_delivered == std::vector<std::int64_t>{1, 3});
}

TEST_CASE("chaos tx check: a delivery nobody attempted is a stray", "[chaos]") {
    tx::Input in;
    deliver(in, 8);
    const auto r = tx::check(in);
    CHECK_FALSE(r.ok());
    CHECK(r.strays == std::vector<std::int64_t>{8});
}

TEST_CASE("chaos tx check: orphans and unrecorded halves committed by a check-back are counted", "[chaos]") {
    tx::Input in;
    produce(in, 0, true, false);  // killed inside its local transaction
    produce(in, 4, false);        // killed around its send: the half may have been stored
    produce(in, 5, false);        // the same, rolled back: must not show
    deliver(in, 0);
    deliver(in, 4);
    const auto r = tx::check(in);
    CHECK(r.ok());
    CHECK(r.orphans_committed == 1);
    CHECK(r.unrecorded_committed == 1);
    CHECK(r.must_deliver == 1);
}

TEST_CASE("chaos tx check: redeliveries and a seq stored under two ids are reported", "[chaos]") {
    tx::Input in;
    produce(in, 0);
    produce(in, 4);
    deliver(in, 0);
    deliver(in, 0);
    deliver(in, 4, "a");
    deliver(in, 4, "b");
    const auto r = tx::check(in);
    CHECK(r.ok());
    CHECK(r.redelivered == 1);
    CHECK(r.several_ids == std::vector<std::int64_t>{4});
}
