#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/offset_store/local_file.hpp>

// The file's own namespace: its helpers' names stay its own when the unity build compiles it with the other
// files of its area.
namespace local_file_store_test {

namespace fs = std::filesystem;

namespace {

const std::string topic = "FooBar";
const std::string broker = "DefaultBrokerName";
const std::string group = "FooBarGroup";

rmq::MessageQueue queue(int id) {
    return rmq::MessageQueue{topic, broker, id};
}

/// A fresh directory per test (LocalFileOffsetStoreTest uses <tmp>/.rocketmq_offsets and a unique client id).
struct TempDir {
    fs::path path;

    TempDir() {
        static std::atomic<int> counter{0};
        path = fs::temp_directory_path() /
               fmt::format("rmq_offsets_{}_{}_{}", ::getpid(), counter++, std::rand());
        fs::create_directories(path);
    }

    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }

    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

rmq::OffsetStoreContext context(std::string client_id = "127.0.0.1@unit") {
    rmq::OffsetStoreContext ctx;
    ctx.group = group;
    ctx.client_id = std::move(client_id);
    return ctx;
}

rmq::LocalFileOffsetStore make_store(const TempDir& dir) {
    rmq::LocalFileOffsetStore store;
    store.store_dir = dir.path.string();
    store.load(context());
    return store;
}

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_all(const fs::path& p, std::string_view text) {
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
}

fs::path bak_of(const fs::path& p) {
    return fs::path(p.string() + ".bak");
}

// The example: what Java's OffsetSerializeWrapper.toJson(true) writes.
const std::string java_file = "{\n"
                              "\t\"offsetTable\":{{\n"
                              "\t\t\t\"brokerName\":\"broker-a\",\n"
                              "\t\t\t\"queueId\":3,\n"
                              "\t\t\t\"topic\":\"TopicTest\"\n"
                              "\t\t}:1470,{\n"
                              "\t\t\t\"brokerName\":\"broker-a\",\n"
                              "\t\t\t\"queueId\":2,\n"
                              "\t\t\t\"topic\":\"TopicTest\"\n"
                              "\t\t}:1471\n"
                              "\t}\n"
                              "}";

}  // namespace

TEST_CASE("local store: file path is <dir>/<client id>/<group>/offsets.json", "[local]") {
    TempDir dir;
    auto store = make_store(dir);
    REQUIRE(store.file_path() == dir.path / "127.0.0.1@unit" / group / "offsets.json");
}

TEST_CASE("local store: update offset (12.6 testUpdateOffset)", "[local]") {
    TempDir dir;
    auto store = make_store(dir);
    const auto mq = queue(1);
    store.update_offset(mq, 1024, false);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1024);
    store.update_offset(mq, 1023, false);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1023);
    store.update_offset(mq, 1022, true);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1023);
}

TEST_CASE("local store: read from store sees only persisted offsets (12.6 testReadOffset_FromStore)",
          "[local]") {
    TempDir dir;
    auto store = make_store(dir);
    const auto mq = queue(2);
    store.update_offset(mq, 1024, false);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == -1);
    const std::vector<rmq::MessageQueue> mqs{mq};
    store.persist_all(mqs);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromStore) == 1024);
}

TEST_CASE("local store: clone offset table (12.6 testCloneOffset)", "[local]") {
    TempDir dir;
    auto store = make_store(dir);
    store.update_offset(queue(3), 1024, false);
    const auto clone = store.clone_offset_table(topic);
    REQUIRE(clone.size() == 1);
    REQUIRE(clone.at(queue(3)) == 1024);
}

TEST_CASE("local store: persist one queue (12.6 testPersist)", "[local]") {
    TempDir dir;
    auto store = make_store(dir);
    store.update_offset(queue(0), 1024, false);
    store.persist(queue(0));
    REQUIRE(store.read_offset(queue(0), rmq::ReadOffsetType::ReadFromStore) == 1024);
    store.persist(queue(1));  // never updated: nothing to write
    REQUIRE(store.read_offset(queue(1), rmq::ReadOffsetType::ReadFromStore) == -1);
}

TEST_CASE("local store: persist_all merges into the file (12.6 testPersistAll)", "[local]") {
    TempDir dir;
    auto store = make_store(dir);
    store.update_offset(queue(0), 1024, false);
    const std::vector<rmq::MessageQueue> first{queue(0)};
    store.persist_all(first);
    REQUIRE(store.read_offset(queue(0), rmq::ReadOffsetType::ReadFromStore) == 1024);

    store.update_offset(queue(1), 1025, false);
    store.update_offset(queue(2), 1026, false);
    const std::vector<rmq::MessageQueue> second{queue(1), queue(2)};
    store.persist_all(second);
    REQUIRE(store.read_offset(queue(0), rmq::ReadOffsetType::ReadFromStore) == 1024);
    REQUIRE(store.read_offset(queue(1), rmq::ReadOffsetType::ReadFromStore) == 1025);
    REQUIRE(store.read_offset(queue(2), rmq::ReadOffsetType::ReadFromStore) == 1026);

    // A fresh store over the same file loads everything.
    auto again = make_store(dir);
    REQUIRE(again.offset_table() ==
            std::map<rmq::MessageQueue, std::int64_t>{{queue(0), 1024}, {queue(1), 1025}, {queue(2), 1026}});
}

TEST_CASE("local store: persist_all of an empty set writes nothing", "[local]") {
    TempDir dir;
    auto store = make_store(dir);
    store.update_offset(queue(0), 1, false);
    store.persist_all({});
    REQUIRE_FALSE(fs::exists(store.file_path()));
}

TEST_CASE("local store: remove offset (12.6 testRemoveOffset) forgets memory, keeps the file", "[local]") {
    TempDir dir;
    auto store = make_store(dir);
    const auto mq = queue(0);
    store.update_offset(mq, 1024, false);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == 1024);
    store.persist(mq);
    store.remove_offset(mq);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) == -1);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::MemoryFirstThenStore) == 1024);
    REQUIRE(store.read_offset(mq, rmq::ReadOffsetType::ReadFromMemory) ==
            1024);  // the store read refilled memory
}

TEST_CASE("local store: reads a file written by Java's fastjson", "[local][format]") {
    TempDir dir;
    rmq::LocalFileOffsetStore store;
    store.store_dir = dir.path.string();
    write_all(dir.path / "127.0.0.1@unit" / group / "offsets.json", java_file);
    store.load(context());
    REQUIRE(store.read_offset(rmq::MessageQueue{"TopicTest", "broker-a", 3},
                              rmq::ReadOffsetType::ReadFromMemory) == 1470);
    REQUIRE(store.read_offset(rmq::MessageQueue{"TopicTest", "broker-a", 2},
                              rmq::ReadOffsetType::ReadFromStore) == 1471);
    REQUIRE(store.offset_table().size() == 2);
}

TEST_CASE("local store: writes exactly Java's fastjson pretty form", "[local][format]") {
    const std::map<rmq::MessageQueue, std::int64_t> table{
        {rmq::MessageQueue{"TopicTest", "broker-a", 3}, 1470},
        {rmq::MessageQueue{"TopicTest", "broker-a", 2}, 1471}};
    // rmq writes in MessageQueue order (queue 2 first); Java's order follows its hash map. Same shape
    // otherwise.
    const std::string expected = "{\n"
                                 "\t\"offsetTable\":{{\n"
                                 "\t\t\t\"brokerName\":\"broker-a\",\n"
                                 "\t\t\t\"queueId\":2,\n"
                                 "\t\t\t\"topic\":\"TopicTest\"\n"
                                 "\t\t}:1471,{\n"
                                 "\t\t\t\"brokerName\":\"broker-a\",\n"
                                 "\t\t\t\"queueId\":3,\n"
                                 "\t\t\t\"topic\":\"TopicTest\"\n"
                                 "\t\t}:1470\n"
                                 "\t}\n"
                                 "}";
    REQUIRE(rmq::detail::format_offset_file(table) == expected);
    REQUIRE(rmq::detail::parse_offset_file(expected) == table);
    REQUIRE(rmq::detail::format_offset_file({}) == "{\n\t\"offsetTable\":{}\n}");
    REQUIRE(rmq::detail::parse_offset_file(rmq::detail::format_offset_file({})).empty());

    TempDir dir;
    auto store = make_store(dir);
    for (const auto& [mq, off] : table) {
        store.update_offset(mq, off, false);
    }
    const std::vector<rmq::MessageQueue> mqs{table.begin()->first, std::next(table.begin())->first};
    store.persist_all(mqs);
    REQUIRE(read_all(store.file_path()) == expected);
}

TEST_CASE("local store: the tolerant parser accepts any whitespace, field order, string keys, extra fields",
          "[local][format]") {
    using rmq::detail::parse_offset_file;
    const std::map<rmq::MessageQueue, std::int64_t> one{{rmq::MessageQueue{"T", "b", 0}, 12}};
    CHECK(parse_offset_file(R"({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:12}})") == one);
    CHECK(parse_offset_file(
              R"( { "offsetTable" : { { "topic" : "T" , "queueId" : 0 , "brokerName" : "b" } : 12 } } )") ==
          one);
    CHECK(parse_offset_file(
              "{\r\n  \"offsetTable\":{{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}:12}\r\n}\n") ==
          one);
    CHECK(parse_offset_file(
              R"({"offsetTable":{"{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}":12}})") == one);
    CHECK(
        parse_offset_file(
            R"({"version":{"a":[1,"}"]},"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:12},"x":"y"})") ==
        one);
    CHECK(parse_offset_file(R"({"offsetTable":{}})").empty());
    CHECK(parse_offset_file("{}").empty());
    // Escapes inside names survive.
    const std::map<rmq::MessageQueue, std::int64_t> esc{{rmq::MessageQueue{"T\"x", "b\\y", 1}, -1}};
    CHECK(parse_offset_file(rmq::detail::format_offset_file(esc)) == esc);
}

TEST_CASE("local store: the parser rejects damaged text", "[local][format]") {
    using rmq::detail::parse_offset_file;
    const std::string full = R"({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:12}})";
    for (std::size_t cut = 0; cut < full.size(); ++cut) {
        INFO("cut at " << cut);
        CHECK_THROWS_AS(parse_offset_file(full.substr(0, cut)), rmq::Error);
    }
    CHECK_THROWS_AS(parse_offset_file(R"({"offsetTable":{{"brokerName":"b","topic":"T"}:12}})"), rmq::Error);
    CHECK_THROWS_AS(parse_offset_file(R"({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:1.5}})"),
                    rmq::Error);
    CHECK_THROWS_AS(parse_offset_file(R"({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:12}}x)"),
                    rmq::Error);
    CHECK_THROWS_AS(parse_offset_file("\x00\x00\x00garbage"), rmq::Error);
}

TEST_CASE("local store: the previous file is kept as .bak", "[local][bak]") {
    TempDir dir;
    auto store = make_store(dir);
    const std::vector<rmq::MessageQueue> mqs{queue(0)};
    store.update_offset(queue(0), 100, false);
    store.persist_all(mqs);
    REQUIRE_FALSE(fs::exists(bak_of(store.file_path())));
    const std::string first = read_all(store.file_path());
    store.update_offset(queue(0), 200, false);
    store.persist_all(mqs);
    REQUIRE(read_all(bak_of(store.file_path())) == first);
    REQUIRE_FALSE(fs::exists(fs::path(store.file_path().string() + ".tmp")));
    REQUIRE(store.read_offset(queue(0), rmq::ReadOffsetType::ReadFromStore) == 200);
}

TEST_CASE("local store: falls back to .bak when the main file is missing, empty or corrupt", "[local][bak]") {
    TempDir dir;
    fs::path path;
    {
        auto store = make_store(dir);
        const std::vector<rmq::MessageQueue> mqs{queue(0)};
        store.update_offset(queue(0), 100, false);
        store.persist_all(mqs);
        store.update_offset(queue(0), 200, false);
        store.persist_all(mqs);  // .bak holds 100, main holds 200
        path = store.file_path();
    }
    const std::string bak_before = read_all(bak_of(path));

    SECTION("corrupt main") {
        write_all(path, "{\"offsetTable\":{{\"brokerName\":\"Def");
    }
    SECTION("empty main") {
        write_all(path, "");
    }
    SECTION("missing main (crash between steps)") {
        fs::remove(path);
    }

    auto store = make_store(dir);
    REQUIRE(store.read_offset(queue(0), rmq::ReadOffsetType::ReadFromMemory) == 100);
    REQUIRE(store.read_offset(queue(0), rmq::ReadOffsetType::ReadFromStore) == 100);

    // The next persist repairs the main file and never replaces the good .bak with the broken main file.
    store.update_offset(queue(0), 300, false);
    const std::vector<rmq::MessageQueue> mqs{queue(0)};
    store.persist_all(mqs);
    REQUIRE(read_all(bak_of(path)) == bak_before);
    REQUIRE(rmq::detail::parse_offset_file(read_all(path)).at(queue(0)) == 300);
}

TEST_CASE("local store: corrupt main file and unusable .bak is a clear error that keeps the .bak",
          "[local][bak]") {
    TempDir dir;
    rmq::LocalFileOffsetStore store;
    store.store_dir = dir.path.string();
    const fs::path path = dir.path / "127.0.0.1@unit" / group / "offsets.json";
    const std::string corrupt_main = "{\"offsetTable\":{{\"brokerName\":";
    write_all(path, corrupt_main);

    SECTION("no .bak") {
        try {
            store.load(context());
            FAIL("load should throw");
        } catch (const rmq::Error& e) {
            const std::string what = e.what();
            CHECK(what.find(path.string()) != std::string::npos);
            CHECK(what.find("no backup") != std::string::npos);
        }
        CHECK_FALSE(fs::exists(bak_of(path)));
    }
    SECTION("corrupt .bak") {
        const std::string corrupt_bak = "not json at all";
        write_all(bak_of(path), corrupt_bak);
        try {
            store.load(context());
            FAIL("load should throw");
        } catch (const rmq::Error& e) {
            const std::string what = e.what();
            CHECK(what.find(path.string()) != std::string::npos);
            CHECK(what.find(bak_of(path).string()) != std::string::npos);
        }
        // Reads turn the error into -1 and persist skips the write, reporting why; both files stay as they
        // were.
        std::vector<std::string> errors;
        store.on_persist_error = [&errors](std::string_view why) {
            errors.emplace_back(why);
        };
        store.update_offset(queue(0), 5, false);
        CHECK(store.read_offset(queue(0), rmq::ReadOffsetType::ReadFromStore) == -1);
        const std::vector<rmq::MessageQueue> mqs{queue(0)};
        store.persist_all(mqs);
        store.persist(queue(0));
        CHECK(errors.size() == 2);
        CHECK(read_all(bak_of(path)) == corrupt_bak);
        CHECK(read_all(path) == corrupt_main);
    }
}

TEST_CASE("local store: missing main file with corrupt .bak is an error (Java throws too)", "[local][bak]") {
    TempDir dir;
    rmq::LocalFileOffsetStore store;
    store.store_dir = dir.path.string();
    const fs::path path = dir.path / "127.0.0.1@unit" / group / "offsets.json";
    write_all(bak_of(path), "{{{");
    CHECK_THROWS_AS(store.load(context()), rmq::Error);
    CHECK(read_all(bak_of(path)) == "{{{");
}

TEST_CASE("local store: no file at all means no offsets", "[local]") {
    TempDir dir;
    auto store = make_store(dir);
    REQUIRE(store.offset_table().empty());
    REQUIRE(store.read_offset(queue(0), rmq::ReadOffsetType::MemoryFirstThenStore) == -1);
}

TEST_CASE("local store: store_dir defaults to $RMQ_OFFSET_STORE_DIR, else $HOME/.rocketmq_offsets",
          "[local]") {
    const char* old = std::getenv("RMQ_OFFSET_STORE_DIR");
    const std::string saved = old != nullptr ? old : "";
    ::setenv("RMQ_OFFSET_STORE_DIR", "/some/where", 1);
    CHECK(rmq::LocalFileOffsetStore{}.store_dir == "/some/where");
    ::unsetenv("RMQ_OFFSET_STORE_DIR");
    const char* home = std::getenv("HOME");
    CHECK(rmq::LocalFileOffsetStore{}.store_dir ==
          fmt::format("{}/.rocketmq_offsets", home != nullptr ? home : "."));
    if (old != nullptr) {
        ::setenv("RMQ_OFFSET_STORE_DIR", saved.c_str(), 1);
    }
}

TEST_CASE("local store: concurrent updates and persists keep file and memory consistent",
          "[local][threads]") {
    TempDir dir;
    auto store = make_store(dir);
    const std::vector<rmq::MessageQueue> owned{queue(0), queue(1), queue(2)};
    constexpr int threads = 3;
    constexpr int per_thread = 300;
    std::atomic<bool> stop{false};
    std::thread persister([&] {
        while (!stop.load()) {
            store.persist_all(owned);
            store.persist(queue(1));
            (void)store.read_offset(queue(2), rmq::ReadOffsetType::MemoryFirstThenStore);
        }
    });
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&store, t] {
            for (int i = 1; i <= per_thread; ++i) {
                store.update_offset(queue(t), i, true);
            }
        });
    }
    for (auto& w : workers) {
        w.join();
    }
    stop = true;
    persister.join();
    store.persist_all(owned);
    auto again = make_store(dir);
    for (int t = 0; t < threads; ++t) {
        CHECK(again.read_offset(queue(t), rmq::ReadOffsetType::ReadFromMemory) == per_thread);
    }
}

TEST_CASE("local store: moving keeps table and file path", "[local]") {
    TempDir dir;
    auto a = make_store(dir);
    a.update_offset(queue(0), 9, false);
    rmq::LocalFileOffsetStore b(std::move(a));
    REQUIRE(b.read_offset(queue(0), rmq::ReadOffsetType::ReadFromMemory) == 9);
    b.persist(queue(0));
    REQUIRE(b.read_offset(queue(0), rmq::ReadOffsetType::ReadFromStore) == 9);
}

TEST_CASE("local store: out-of-range numbers in the file are damage: a clear error and the .bak is used",
          "[local][bak][hostile]") {
    TempDir dir;
    fs::path path;
    {
        auto store = make_store(dir);
        const std::vector<rmq::MessageQueue> mqs{queue(0)};
        store.update_offset(queue(0), 100, false);
        store.persist_all(mqs);
        store.update_offset(queue(0), 200, false);
        store.persist_all(mqs);  // .bak holds 100, main holds 200
        path = store.file_path();
    }
    const auto entry = [](std::string_view queue_id, std::string_view offset) {
        return fmt::format(R"({{"offsetTable":{{{{"brokerName":"{}","queueId":{},"topic":"{}"}}:{}}}}})",
                           broker,
                           queue_id,
                           topic,
                           offset);
    };
    std::string damaged;
    SECTION("queueId 1e300 (a double far outside int)") {
        damaged = entry("1e300", "200");
    }
    SECTION("queueId -1e300") {
        damaged = entry("-1e300", "200");
    }
    SECTION("queueId 1.5") {
        damaged = entry("1.5", "200");
    }
    SECTION("queueId 2^40") {
        damaged = entry("1099511627776", "200");
    }
    SECTION("negative queueId") {
        damaged = entry("-3", "200");
    }
    SECTION("offset 1e300") {
        damaged = entry("0", "1e300");
    }
    SECTION("offset beyond int64") {
        damaged = entry("0", "99999999999999999999");
    }
    SECTION("negative offset") {
        damaged = entry("0", "-5");
    }
    INFO(damaged);
    CHECK_THROWS_AS(rmq::detail::parse_offset_file(damaged), rmq::Error);
    write_all(path, damaged);
    auto store = make_store(dir);
    CHECK(store.read_offset(queue(0), rmq::ReadOffsetType::ReadFromMemory) == 100);
}

TEST_CASE("local store: offset -1 (no offset) and the largest queue id are read back", "[local]") {
    const auto table = rmq::detail::parse_offset_file(
        R"({"offsetTable":{{"brokerName":"b","queueId":2147483647,"topic":"t"}:-1}})");
    CHECK(table.at(rmq::MessageQueue{"t", "b", 2147483647}) == -1);
}

}  // namespace local_file_store_test
