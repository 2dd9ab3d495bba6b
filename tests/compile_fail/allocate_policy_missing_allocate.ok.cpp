// Positive twin of allocate_policy_missing_allocate.fail.cpp: the same skeleton with allocate() compiles.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/message_queue.hpp>

namespace {

struct WithAllocate {
    int queues_per_consumer = 4;

    std::vector<rmq::MessageQueue> allocate(std::string_view /*group*/,
                                            std::string_view /*current_cid*/,
                                            std::span<const rmq::MessageQueue> mq_all,
                                            std::span<const std::string> /*cid_all*/) const {
        return {mq_all.begin(), mq_all.end()};
    }
};

template <rmq::AllocatePolicy Allocate>
int use_policy(const Allocate&) {
    return 0;
}

}  // namespace

int main() {
    return use_policy(WithAllocate{});
}
