// The custom strategy of docs/policies/allocate.md, kept here so the documented code compiles and behaves as
// described. Keep the two in sync.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/allocate/machine_room_nearby.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/message_queue.hpp>

namespace {

// --8<-- [start:custom]
/// Active/standby: the first consumer of the (sorted) group takes every queue, the others wait idle and take
/// over when it leaves the group.
struct AllocateActiveStandby {
    static constexpr std::string_view name() noexcept { return "ACTIVE_STANDBY"; }

    std::vector<rmq::MessageQueue> allocate(std::string_view /*group*/,
                                            std::string_view current_cid,
                                            std::span<const rmq::MessageQueue> mq_all,
                                            std::span<const std::string> cid_all) const {
        if (cid_all.empty() || cid_all.front() != current_cid) {
            return {};
        }
        return {mq_all.begin(), mq_all.end()};
    }
};

static_assert(rmq::AllocatePolicy<AllocateActiveStandby>);

// --8<-- [end:custom]

struct DashRoomResolver {
    static std::string room_of(std::string_view name) { return std::string(name.substr(0, name.find('-'))); }

    std::string broker_deploy_in(const rmq::MessageQueue& mq) const { return room_of(mq.broker_name); }

    std::string consumer_deploy_in(std::string_view client_id) const { return room_of(client_id); }
};

}  // namespace

TEST_CASE("a custom strategy: active/standby", "[allocate]") {
    const std::vector<rmq::MessageQueue> mq_all{
        {"T", "broker-a", 0}, {"T", "broker-a", 1}, {"T", "broker-b", 0}};
    const std::vector<std::string> cid_all{"10.0.0.1@1", "10.0.0.2@2"};
    const AllocateActiveStandby policy;
    CHECK(policy.allocate("G", "10.0.0.1@1", mq_all, cid_all) == mq_all);
    CHECK(policy.allocate("G", "10.0.0.2@2", mq_all, cid_all).empty());
    CHECK(policy.allocate("G", "10.0.0.9@9", mq_all, cid_all).empty());
}

TEST_CASE("a custom strategy composes with MACHINE_ROOM_NEARBY", "[allocate]") {
    const rmq::AllocateMachineRoomNearby nearby{AllocateActiveStandby{}, DashRoomResolver{}};
    CHECK(nearby.name() == "MACHINE_ROOM_NEARBY-ACTIVE_STANDBY");
    const std::vector<rmq::MessageQueue> mq_all{{"T", "IDC1-a", 0}, {"T", "IDC2-b", 0}, {"T", "IDC3-c", 0}};
    const std::vector<std::string> cid_all{"IDC1-x", "IDC1-y", "IDC2-z"};
    // IDC1's active consumer also takes the consumer-less IDC3; IDC2's only consumer takes its own room.
    CHECK(nearby.allocate("G", "IDC1-x", mq_all, cid_all) ==
          std::vector<rmq::MessageQueue>{{"T", "IDC1-a", 0}, {"T", "IDC3-c", 0}});
    CHECK(nearby.allocate("G", "IDC1-y", mq_all, cid_all).empty());
    CHECK(nearby.allocate("G", "IDC2-z", mq_all, cid_all) ==
          std::vector<rmq::MessageQueue>{{"T", "IDC2-b", 0}});
}
