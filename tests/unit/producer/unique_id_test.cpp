// UNIQ_KEY layout against misc.json's MessageClientIDSetter vectors.

#include <set>
#include <string>
#include <thread>
#include <vector>

#include <golden.hpp>

#include <catch2/catch.hpp>

#include <rmq/unique_id.hpp>

namespace {

std::vector<std::uint8_t> parse_ip(const std::string& hex) {
    std::vector<std::uint8_t> out;
    for (const char c : rmq_test::from_hex(hex)) {
        out.push_back(static_cast<std::uint8_t>(c));
    }
    return out;
}

std::string hex_of(const std::vector<std::uint8_t>& bytes) {
    return rmq_test::to_hex(std::string(bytes.begin(), bytes.end()));
}

}  // namespace

TEST_CASE("unique id: composed vectors encode and decode like MessageClientIDSetter") {
    const auto golden = rmq_test::load_golden("misc.json").at("unique_id").at("composed");
    REQUIRE(golden.size() == 6);
    for (const auto& v : golden) {
        const std::string id = v.at("id");
        INFO(id);
        const auto ip = parse_ip(v.at("getIPFromID_hex"));
        CHECK(rmq::compose_unique_id(ip,
                                     v.at("pid").get<std::int32_t>(),
                                     v.at("classLoaderHashCode").get<std::int32_t>(),
                                     v.at("diffMillisSinceMonthStart").get<std::int32_t>(),
                                     v.at("counter").get<std::int32_t>()) == id);
        CHECK(rmq::unique_id_ip_string(id) == v.at("getIPStrFromID").get<std::string>());
        CHECK(hex_of(rmq::unique_id_ip(id)) == v.at("getIPFromID_hex").get<std::string>());
        CHECK(rmq::unique_id_pid(id) == v.at("getPidFromID").get<std::int32_t>());
    }
}

TEST_CASE("unique id: live vectors decode, and the nearly-time rule goes back one month") {
    const auto u = rmq_test::load_golden("misc.json").at("unique_id");
    const std::int64_t generated = 1796226364698;  // "generated near" in live_note
    REQUIRE(u.at("live").size() == 5);
    for (const auto& v : u.at("live")) {
        const std::string id = v.at("id");
        INFO(id);
        CHECK(rmq::unique_id_ip_string(id) == v.at("getIPStrFromID").get<std::string>());
        CHECK(rmq::unique_id_pid(id) == v.at("getPidFromID").get<std::int32_t>());
        CHECK(rmq::unique_id_nearly_time(id, generated) ==
              v.at("getNearlyTimeFromID_millis").get<std::int64_t>());
        CHECK(id.starts_with("FD000000000000000000000000000002776C30946E09"));  // FIX_STRING
    }
    // Decoded a day later the same id lands in the current month.
    const std::string id = u.at("live")[0].at("id");
    CHECK(rmq::unique_id_nearly_time(id, generated + 86400000) == generated);
}

TEST_CASE("unique id: the generator reproduces the layout from a clock") {
    // 2026-12-01T00:00:00Z = 1796083200000 (startTime in live_note).
    auto clock = std::make_shared<rmq::ManualClock>(1796083200000 + 123456789);
    rmq::UniqueIdGenerator gen(clock, {10, 0, 0, 5}, 12345, 460141958);
    CHECK(gen.fix_string() == "0A00000530391B6D3586");
    const auto a = gen.next();
    const auto b = gen.next();
    CHECK(a.substr(0, 28) == "0A00000530391B6D3586075BCD15");
    CHECK(a.size() == 32);
    const auto ca = std::stoi(a.substr(28), nullptr, 16);
    const auto cb = std::stoi(b.substr(28), nullptr, 16);
    CHECK(cb == ((ca + 1) & 0xFFFF));
    CHECK(rmq::unique_id_ip_string(a) == "10.0.0.5");
    CHECK(rmq::unique_id_pid(a) == 12345);
    CHECK(rmq::unique_id_nearly_time(a, clock->wall_millis() + 1) == clock->wall_millis());

    // The month rolls over: the time field restarts from the new month's start.
    clock->advance(rmq::Millis(31LL * 86400000));  // 2027-01-01T00:00:00Z + 123456789 ms
    CHECK(gen.next().substr(20, 8) == "075BCD15");

    rmq::UniqueIdGenerator v6(clock, parse_ip("20010db8000000000000000000000001"), 4242, 305419896);
    const auto id6 = v6.next();
    CHECK(id6.size() == 56);
    CHECK(id6.substr(0, 44) == "20010DB8000000000000000000000001109212345678");
    CHECK(rmq::unique_id_ip_string(id6) == "2001:0db8:0000:0000:0000:0000:0000:0001");

    rmq::UniqueIdGenerator local(clock);
    CHECK(local.next().size() == 32);
}

TEST_CASE("unique id: bad input is rejected") {
    CHECK_THROWS_AS(rmq::unique_id_pid("ABC"), rmq::InvalidArgument);
    CHECK_THROWS_AS(rmq::unique_id_ip("ZZ00000530391B6D3586075BCD150000"), rmq::InvalidArgument);
    const std::vector<std::uint8_t> five{1, 2, 3, 4, 5};
    CHECK_THROWS_AS(rmq::compose_unique_id(five, 1, 1, 1, 1), rmq::InvalidArgument);
}

TEST_CASE("unique id: concurrent generation gives distinct ids") {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::UniqueIdGenerator gen(clock, {10, 0, 0, 5}, 1, 2);
    std::vector<std::vector<std::string>> ids(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 1000; ++i) {
                ids[t].push_back(gen.next());
            }
        });
    }
    for (auto& th : threads) {
        th.join();
    }
    std::set<std::string> all;
    for (const auto& v : ids) {
        all.insert(v.begin(), v.end());
    }
    CHECK(all.size() == 4000);
}
