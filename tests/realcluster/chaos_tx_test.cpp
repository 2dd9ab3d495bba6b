// The transactional chaos run (docs/chaos.md): producer processes of one group (tests/chaos/tx_producer.cpp)
// killed with kill -9 — twice inside a local transaction, between the half message and END_TRANSACTION, once
// at whatever point it had reached — while their successors keep answering the broker's check-backs; a
// consumer of the topic must then get every committed message and no rolled-back one (issue 31 item 3).
// tools/rocketmq/broker.conf.in checks half messages 3 s after their birth, every 5 s.

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "chaos_tx_check.hpp"
#include "cluster.hpp"
#include "process.hpp"
#include "round_trip.hpp"
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/transport/remoting.hpp>

// The file's own namespace, test cases included: its helpers' names stay its own when the unity build
// compiles it with the other test files.
namespace chaos_tx_test {

namespace tx = rmq_chaos::tx;

/// The events of every incarnation's log (a last line without its newline, cut by a kill, is left out).
std::vector<tx::Event> read_events(const std::filesystem::path& dir) {
    std::vector<tx::Event> out;
    for (const auto& f : std::filesystem::directory_iterator(dir)) {
        if (f.path().extension() != ".tsv") {
            continue;
        }
        std::ifstream in(f.path());
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::size_t begin = 0;
        for (std::size_t end = 0; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1) {
            const auto line = text.substr(begin, end - begin);
            const auto tab = line.find('\t');
            out.push_back(tx::Event{.kind = line.substr(0, tab), .seq = std::stoll(line.substr(tab + 1))});
        }
    }
    return out;
}

bool logged(const std::filesystem::path& dir, const std::string& kind, std::int64_t seq) {
    const auto events = read_events(dir);
    return std::any_of(
        events.begin(), events.end(), [&](const tx::Event& e) { return e.kind == kind && e.seq == seq; });
}

/// What the consumer received.
struct Deliveries {
    std::mutex mutex;
    std::vector<tx::Delivery> all;

    void add(std::span<const rmq::MessageExt> msgs) {
        const std::scoped_lock lock(mutex);
        for (const auto& m : msgs) {
            all.push_back(tx::Delivery{.seq = std::stoll(std::string(m.keys())), .msg_id = m.msg_id()});
        }
    }

    std::vector<tx::Delivery> copy() {
        const std::scoped_lock lock(mutex);
        return all;
    }
};

/// Incarnation `n` of the producer: seqs from n x 100,000, its local transaction of `hang_at` never returns.
pid_t start_producer(const std::filesystem::path& dir,
                     const std::string& topic,
                     const std::string& group,
                     int n,
                     int count,
                     std::int64_t hang_at) {
    return rmq_rc::spawn({RMQ_CHAOS_TX_PRODUCER,
                          rmq_rc::namesrv(),
                          topic,
                          group,
                          std::to_string(n * 100'000),
                          "40",
                          std::to_string(count),
                          std::to_string(hang_at),
                          (dir / fmt::format("tx.{}.tsv", n)).string()},
                         (dir / fmt::format("tx.{}.err", n)).string());
}

void kill_now(pid_t pid) {
    ::kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
}

TEST_CASE("chaos (transactions): producers killed between the half message and END_TRANSACTION lose nothing "
          "committed and deliver nothing rolled back",
          "[realcluster][chaos][transaction]") {
    const std::string topic = rmq_rc::unique("RcChaosTx");
    const std::string group = rmq_rc::unique("chaostxpg");
    const auto dir = std::filesystem::temp_directory_path() / topic;
    std::filesystem::create_directories(dir);
    rmq_rc::create_topic(topic, 4);

    Deliveries got;
    rmq::PushConsumer<rmq::RemotingTransport> consumer{rmq::RemotingTransport{rmq_rc::config()},
                                                       rmq_rc::consumer_config()};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        got.add(msgs);
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();

    // seq 20 is to be committed, 100,021 rolled back: both orphaned inside their local transaction.
    constexpr std::int64_t orphan_commit = 20;
    constexpr std::int64_t orphan_rollback = 100'021;
    const pid_t first = start_producer(dir, topic, group, 0, 1000, orphan_commit);
    REQUIRE(rmq_rc::wait_until([&] { return logged(dir, "executing", orphan_commit); },
                               std::chrono::seconds(60)));
    kill_now(first);
    const pid_t second = start_producer(dir, topic, group, 1, 1000, orphan_rollback);
    REQUIRE(rmq_rc::wait_until([&] { return logged(dir, "executing", orphan_rollback); },
                               std::chrono::seconds(60)));
    kill_now(second);
    const pid_t third = start_producer(dir, topic, group, 2, 1000, -1);
    REQUIRE(rmq_rc::wait_until([&] { return logged(dir, "ended", 200'010); }, std::chrono::seconds(60)));
    kill_now(third);  // wherever it is
    const pid_t last = start_producer(dir, topic, group, 3, 40, -1);

    // Done when every stored message meant to be committed arrived and the check-backs of both orphans were
    // answered (after its answer, a rolled-back half message is gone for good).
    const auto report = [&] {
        return tx::check(tx::Input{.events = read_events(dir), .deliveries = got.copy()});
    };
    const bool settled = rmq_rc::wait_until(
        [&] {
            return logged(dir, "ended", 300'039) && logged(dir, "check", orphan_commit) &&
                   logged(dir, "check", orphan_rollback) && report().lost.empty();
        },
        std::chrono::seconds(150));
    ::kill(last, SIGTERM);
    waitpid(last, nullptr, 0);
    consumer.shutdown();
    const auto r = report();
    const auto summary =
        fmt::format("logs: {}; attempted {}, stored {}, orphaned {}, must deliver {}, delivered {}, orphans "
                    "committed by a check-back {}, committed without a stored record {}, check-backs {}, "
                    "redelivered {}",
                    dir.string(),
                    r.attempted,
                    r.stored,
                    r.orphaned,
                    r.must_deliver,
                    r.delivered,
                    r.orphans_committed,
                    r.unrecorded_committed,
                    r.checks,
                    r.redelivered);
    fmt::print("chaos_tx: {}\n", summary);
    INFO(summary);
    CHECK(settled);
    CHECK(r.lost.empty());
    CHECK(r.rolled_back_delivered.empty());
    CHECK(r.strays.empty());
    CHECK(r.several_ids.empty());
    CHECK(r.orphans_committed >= 1);
    CHECK(r.stored >= 60);
}

}  // namespace chaos_tx_test
