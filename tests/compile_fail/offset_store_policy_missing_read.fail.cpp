// EXPECT: HasReadOffset
// A store without read_offset: the diagnostic must name the missing fragment.
#include <cstdint>
#include <map>
#include <span>

#include <rmq/concepts/offset_store_policy.hpp>

struct NoReadOffset {
    void load(const rmq::OffsetStoreContext&) {}

    void update_offset(const rmq::MessageQueue&, std::int64_t, bool) {}

    void persist(const rmq::MessageQueue&) {}

    void persist_all(std::span<const rmq::MessageQueue>) {}

    void remove_offset(const rmq::MessageQueue&) {}

    std::map<rmq::MessageQueue, std::int64_t> offset_table() const { return {}; }
};

template <rmq::OffsetStorePolicy S>
void use_store(S&) {}

int main() {
    NoReadOffset s;
    use_store(s);
    return 0;
}
