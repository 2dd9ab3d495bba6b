// EXPECT: HasAllocate
// A policy without allocate() is rejected where it is used, and the diagnostic names the missing fragment.

#include <rmq/concepts/allocate_policy.hpp>

namespace {

struct NoAllocate {
    int queues_per_consumer = 4;  // looks like a strategy, but has no allocate()
};

template <rmq::AllocatePolicy Allocate>
int use_policy(const Allocate&) {
    return 0;
}

}  // namespace

int main() {
    return use_policy(NoAllocate{});
}
