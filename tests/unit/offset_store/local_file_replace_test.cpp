// The local offsets file is replaced (temp file + rename), never rewritten in place: a write cut off halfway
// - a full disk, a size limit, a kill - leaves the previous file whole, so a restart or a reader never meets
// half a table (which read_offset_file would refuse, or silently replace by an older .bak).

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/offset_store/local_file.hpp>

namespace fs = std::filesystem;

namespace {

rmq::MessageQueue queue(int id) {
    return rmq::MessageQueue{"ReplaceTopic", "broker-a", id};
}

struct TempDir {
    fs::path path;

    TempDir() {
        static std::atomic<int> counter{0};
        path = fs::temp_directory_path() /
               fmt::format("rmq_offsets_replace_{}_{}_{}", ::getpid(), counter++, std::rand());
        fs::create_directories(path);
    }

    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }

    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

rmq::LocalFileOffsetStore make_store(const TempDir& dir) {
    rmq::LocalFileOffsetStore store;
    store.store_dir = dir.path.string();
    rmq::OffsetStoreContext ctx;
    ctx.group = "ReplaceGroup";
    ctx.client_id = "127.0.0.1@replace";
    store.load(ctx);
    return store;
}

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// While alive, no file of this process can grow past `bytes` (RLIMIT_FSIZE): a write beyond it stores what
// fits and fails with EFBIG (SIGXFSZ, which would kill the process, is ignored meanwhile). Regular files
// only, so ctest's pipes are not affected.
class FileSizeCap {
public:
    explicit FileSizeCap(rlim_t bytes) {
        ok_ = ::getrlimit(RLIMIT_FSIZE, &saved_) == 0;
        previous_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit cap = saved_;
        cap.rlim_cur = bytes;
        ok_ = ok_ && ::setrlimit(RLIMIT_FSIZE, &cap) == 0;
    }

    ~FileSizeCap() {
        (void)::setrlimit(RLIMIT_FSIZE, &saved_);
        (void)std::signal(SIGXFSZ, previous_);
    }

    FileSizeCap(const FileSizeCap&) = delete;
    FileSizeCap& operator=(const FileSizeCap&) = delete;

    [[nodiscard]] bool ok() const noexcept { return ok_; }

private:
    rlimit saved_{};
    void (*previous_)(int) = SIG_DFL;
    bool ok_ = false;
};

}  // namespace

TEST_CASE("local store: a write cut off halfway leaves the previous offsets file whole", "[local][replace]") {
    TempDir dir;
    auto store = make_store(dir);
    std::vector<std::string> errors;
    store.on_persist_error = [&errors](std::string_view why) {
        errors.emplace_back(why);
    };
    store.update_offset(queue(0), 100, false);
    const std::vector<rmq::MessageQueue> first{queue(0)};
    store.persist_all(first);
    const std::string before = read_all(store.file_path());
    REQUIRE(make_store(dir).offset_table() == std::map<rmq::MessageQueue, std::int64_t>{{queue(0), 100}});

    std::vector<rmq::MessageQueue> all;
    for (int i = 0; i < 64; ++i) {
        all.push_back(queue(i));
        store.update_offset(queue(i), 1000 + i, false);
    }
    {
        // 64 entries take several KB: the write stops a little past the old file's size.
        const FileSizeCap cap(before.size() + 64);
        REQUIRE(cap.ok());
        store.persist_all(all);
    }
    INFO("persist errors: " << fmt::format("{}", fmt::join(errors, " | ")));
    REQUIRE(errors.size() == 1);  // the cut-off write was reported
    CHECK(read_all(store.file_path()) == before);
    CHECK(make_store(dir).offset_table() == std::map<rmq::MessageQueue, std::int64_t>{{queue(0), 100}});

    // Without the cap the next persist replaces the file with the whole table.
    store.persist_all(all);
    CHECK(errors.size() == 1);
    CHECK(make_store(dir).offset_table().size() == 64);
    CHECK(make_store(dir).offset_table().at(queue(63)) == 1063);
}
