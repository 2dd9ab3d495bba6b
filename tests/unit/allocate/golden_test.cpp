// Every vector of tests/data/allocate.json: the stock strategies must return exactly what Apache RocketMQ's
// unmodified Java strategies returned (same queues, same order, same exceptions).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <golden.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/allocate/averagely.hpp>
#include <rmq/allocate/averagely_by_circle.hpp>
#include <rmq/allocate/consistent_hash.hpp>
#include <rmq/allocate/machine_room_nearby.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>

#include <rmq/detail/util/md5.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace golden_test {

namespace {

using nlohmann::json;

const json& golden() {
    static const json doc = rmq_test::load_golden("allocate.json");
    return doc;
}

std::vector<rmq::MessageQueue> queues(const std::string& topic, const json& list) {
    std::vector<rmq::MessageQueue> out;
    for (const auto& q : list) {
        out.push_back(rmq::MessageQueue{topic, q.at(0).get<std::string>(), q.at(1).get<std::int32_t>()});
    }
    return out;
}

std::string show(const std::vector<rmq::MessageQueue>& mqs) {
    std::string out = "[";
    for (const auto& mq : mqs) {
        out += fmt::format("[{},{}]", mq.broker_name, mq.queue_id);
    }
    return out + "]";
}

// Runs `policy` on every case of `section` that has results for `strategy`, both on the given and on the
// sorted inputs, for every query id; returns how many vectors were compared.
template <rmq::AllocatePolicy P>
std::size_t check_strategy(const char* section, const std::string& strategy, const P& policy) {
    std::size_t checked = 0;
    for (const auto& c : golden().at(section)) {
        const auto& results = c.at("results").at(strategy);
        const auto topic = c.at("topic").get<std::string>();
        const auto group = c.at("consumerGroup").get<std::string>();
        const auto query = c.at("queryCIDs").get<std::vector<std::string>>();
        for (const char* order : {"given", "sorted"}) {
            const auto mq_all = queues(topic, c.at(std::string("mqAll_") + order));
            const auto cid_all = c.at(std::string("cidAll_") + order).get<std::vector<std::string>>();
            const auto& expected_list = results.at(order);
            REQUIRE(expected_list.size() == query.size());
            for (std::size_t i = 0; i < query.size(); ++i) {
                INFO(fmt::format("{} case {} ({}) {} query {}",
                                 strategy,
                                 c.at("id").get<int>(),
                                 c.at("kind").get<std::string>(),
                                 order,
                                 query[i]));
                const auto& expected = expected_list[i];
                ++checked;
                if (expected.is_object()) {
                    const auto error = expected.at("error").get<std::string>();
                    const std::string prefix = "java.lang.IllegalArgumentException: ";
                    REQUIRE(error.rfind(prefix, 0) == 0);
                    try {
                        (void)policy.allocate(group, query[i], mq_all, cid_all);
                        FAIL_CHECK("expected rmq::InvalidArgument: " << error);
                    } catch (const rmq::InvalidArgument& e) {
                        CHECK(std::string(e.what()) == error.substr(prefix.size()));
                    }
                } else {
                    const auto got = policy.allocate(group, query[i], mq_all, cid_all);
                    const auto want = queues(topic, expected);
                    if (got != want) {
                        FAIL_CHECK("got " << show(got) << " want " << show(want));
                    }
                }
            }
        }
    }
    return checked;
}

// The resolver of the generator (Apache's AllocateMachineRoomNearByTest): the room is the text before the
// first
// '-' (Java's `name.split("-")[0]`), e.g. broker "IDC1-broker-a" and client id "IDC2-10.0.0.7@1234".
struct DashRoomResolver {
    static std::string room_of(std::string_view name) { return std::string(name.substr(0, name.find('-'))); }

    std::string broker_deploy_in(const rmq::MessageQueue& mq) const { return room_of(mq.broker_name); }

    std::string consumer_deploy_in(std::string_view client_id) const { return room_of(client_id); }
};

std::size_t count_cases(const char* section, const char* count_key) {
    const auto& cases = golden().at(section);
    REQUIRE(cases.size() == golden().at(count_key).get<std::size_t>());
    REQUIRE(!cases.empty());
    return cases.size();
}

}  // namespace

TEST_CASE("golden vectors: AVG", "[allocate][golden]") {
    count_cases("cases", "case_count");
    const auto checked = check_strategy("cases", "AVG", rmq::AllocateAveragely{});
    fmt::print("allocate.json AVG: {} vectors checked\n", checked);
    REQUIRE(checked == 7216);  // every vector of the file has this strategy's expectation
}

TEST_CASE("golden vectors: AVG_BY_CIRCLE", "[allocate][golden]") {
    count_cases("cases", "case_count");
    const auto checked = check_strategy("cases", "AVG_BY_CIRCLE", rmq::AllocateAveragelyByCircle{});
    fmt::print("allocate.json AVG_BY_CIRCLE: {} vectors checked\n", checked);
    REQUIRE(checked == 7216);  // every vector of the file has this strategy's expectation
}

TEST_CASE("golden vectors: CONSISTENT_HASH", "[allocate][golden]") {
    count_cases("cases", "case_count");
    const rmq::AllocateConsistentHash policy;
    REQUIRE(policy.virtual_node_count() == 10);
    const auto checked = check_strategy("cases", "CONSISTENT_HASH", policy);
    fmt::print("allocate.json CONSISTENT_HASH: {} vectors checked\n", checked);
    REQUIRE(checked == 7216);  // every vector of the file has this strategy's expectation
}

TEST_CASE("golden vectors: CONSISTENT_HASH_VN3", "[allocate][golden]") {
    count_cases("cases", "case_count");
    const auto checked = check_strategy("cases", "CONSISTENT_HASH_VN3", rmq::AllocateConsistentHash{3});
    fmt::print("allocate.json CONSISTENT_HASH_VN3: {} vectors checked\n", checked);
    REQUIRE(checked == 7216);  // every vector of the file has this strategy's expectation
}

TEST_CASE("golden vectors: MACHINE_ROOM_NEARBY-AVG", "[allocate][golden]") {
    count_cases("machine_room_cases", "machine_room_case_count");
    const rmq::AllocateMachineRoomNearby policy{rmq::AllocateAveragely{}, DashRoomResolver{}};
    REQUIRE(policy.name() == "MACHINE_ROOM_NEARBY-AVG");
    const auto checked = check_strategy("machine_room_cases", policy.name(), policy);
    fmt::print("allocate.json MACHINE_ROOM_NEARBY-AVG: {} vectors checked\n", checked);
    REQUIRE(checked == 6906);  // every vector of the file has this strategy's expectation
}

TEST_CASE("golden vectors: MACHINE_ROOM_NEARBY-AVG_BY_CIRCLE", "[allocate][golden]") {
    count_cases("machine_room_cases", "machine_room_case_count");
    const rmq::AllocateMachineRoomNearby policy{rmq::AllocateAveragelyByCircle{}, DashRoomResolver{}};
    REQUIRE(policy.name() == "MACHINE_ROOM_NEARBY-AVG_BY_CIRCLE");
    const auto checked = check_strategy("machine_room_cases", policy.name(), policy);
    fmt::print("allocate.json MACHINE_ROOM_NEARBY-AVG_BY_CIRCLE: {} vectors checked\n", checked);
    REQUIRE(checked == 6906);  // every vector of the file has this strategy's expectation
}

TEST_CASE("golden vectors: MD5 ring hash samples", "[allocate][golden]") {
    const auto& samples = golden().at("md5hash_samples");
    REQUIRE(!samples.empty());
    std::size_t checked = 0;
    for (const auto& s : samples) {
        const auto key = s.at("key").get<std::string>();
        INFO("key " << key);
        CHECK(rmq::detail::md5_prefix32(key) == s.at("hash").get<std::uint32_t>());
        ++checked;
    }
    fmt::print("allocate.json md5hash_samples: {} vectors checked\n", checked);
    REQUIRE(checked == samples.size());
    REQUIRE(checked == 11);
}

}  // namespace golden_test
