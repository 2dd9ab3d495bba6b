// Positive twin of allocate_policy_nonconst.fail.cpp: the same policy with a const allocate() compiles.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/message_queue.hpp>

namespace {

struct ConstAllocate {
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
    return use_policy(ConstAllocate{});
}
