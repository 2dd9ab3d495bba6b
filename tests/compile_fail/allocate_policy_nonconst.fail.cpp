// EXPECT: HasAllocate
// allocate() must be callable on a const policy (a policy object may be shared and is treated as immutable).
// A non-const allocate() is rejected, and the diagnostic names the fragment HasAllocate.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/message_queue.hpp>

namespace {

struct NonConstAllocate {
    std::vector<rmq::MessageQueue> allocate(std::string_view /*group*/,
                                            std::string_view /*current_cid*/,
                                            std::span<const rmq::MessageQueue> mq_all,
                                            std::span<const std::string> /*cid_all*/) {
        return {mq_all.begin(), mq_all.end()};
    }
};

template <rmq::AllocatePolicy Allocate>
int use_policy(const Allocate&) {
    return 0;
}

}  // namespace

int main() {
    return use_policy(NonConstAllocate{});
}
