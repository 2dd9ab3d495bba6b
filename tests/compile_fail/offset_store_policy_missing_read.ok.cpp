// Positive twin of offset_store_policy_missing_read.fail.cpp: the same skeleton with read_offset compiles.
#include <cstdint>
#include <map>
#include <span>

#include <rmq/concepts/offset_store_policy.hpp>

struct WithReadOffset {
    void load(const rmq::OffsetStoreContext&) {}

    void update_offset(const rmq::MessageQueue&, std::int64_t, bool) {}

    std::int64_t read_offset(const rmq::MessageQueue&, rmq::ReadOffsetType) { return -1; }

    void persist(const rmq::MessageQueue&) {}

    void persist_all(std::span<const rmq::MessageQueue>) {}

    void remove_offset(const rmq::MessageQueue&) {}

    std::map<rmq::MessageQueue, std::int64_t> offset_table() const { return {}; }
};

template <rmq::OffsetStorePolicy S>
void use_store(S&) {}

int main() {
    WithReadOffset s;
    use_store(s);
    return 0;
}
