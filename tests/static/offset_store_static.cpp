#include <catch2/catch.hpp>

#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/offset_store/local_file.hpp>
#include <rmq/offset_store/memory.hpp>
#include <rmq/offset_store/remote.hpp>

namespace {
struct NoReadOffset {
    void load(const rmq::OffsetStoreContext&) {}

    void update_offset(const rmq::MessageQueue&, std::int64_t, bool) {}

    void persist(const rmq::MessageQueue&) {}

    void persist_all(std::span<const rmq::MessageQueue>) {}

    void remove_offset(const rmq::MessageQueue&) {}

    std::map<rmq::MessageQueue, std::int64_t> offset_table() const { return {}; }
};

struct WrongReadType : NoReadOffset {
    int read_offset(const rmq::MessageQueue&, rmq::ReadOffsetType) { return 0; }
};

struct Complete : NoReadOffset {
    std::int64_t read_offset(const rmq::MessageQueue&, rmq::ReadOffsetType) { return 0; }
};

// The custom-store example of docs/policies/offset_store.md, kept compiling.
class DbOffsetStore {
public:
    void load(const rmq::OffsetStoreContext& ctx) { group_ = ctx.group; }

    void update_offset(const rmq::MessageQueue& mq, std::int64_t off, bool increase_only) {
        mem_.update_offset(mq, off, increase_only);
    }

    std::int64_t read_offset(const rmq::MessageQueue& mq, rmq::ReadOffsetType t) {
        return mem_.read_offset(mq, t);
    }

    void persist(const rmq::MessageQueue&) {}

    void persist_all(std::span<const rmq::MessageQueue>) {}

    void remove_offset(const rmq::MessageQueue& mq) { mem_.remove_offset(mq); }

    std::map<rmq::MessageQueue, std::int64_t> offset_table() const { return mem_.offset_table(); }

private:
    std::string group_;
    rmq::MemoryOffsetStore mem_;
};
}  // namespace

TEST_CASE("offset stores model OffsetStorePolicy", "[offset_store][static]") {
    STATIC_REQUIRE(rmq::OffsetStorePolicy<rmq::MemoryOffsetStore>);
    STATIC_REQUIRE(rmq::OffsetStorePolicy<rmq::RemoteOffsetStore>);
    STATIC_REQUIRE(rmq::OffsetStorePolicy<rmq::LocalFileOffsetStore>);
    STATIC_REQUIRE(rmq::OffsetStorePolicy<Complete>);
    STATIC_REQUIRE(rmq::OffsetStorePolicy<DbOffsetStore>);
}

TEST_CASE("OffsetStorePolicy rejects stores missing read_offset or returning the wrong type",
          "[offset_store][static]") {
    STATIC_REQUIRE_FALSE(rmq::HasReadOffset<NoReadOffset>);
    STATIC_REQUIRE_FALSE(rmq::OffsetStorePolicy<NoReadOffset>);
    STATIC_REQUIRE_FALSE(rmq::OffsetStorePolicy<WrongReadType>);
    STATIC_REQUIRE(rmq::HasLoad<NoReadOffset>);
    STATIC_REQUIRE(rmq::HasOffsetTable<NoReadOffset>);
}
