// rmq_chaos_tx_producer NAMESRV TOPIC GROUP FIRST_SEQ RATE COUNT HANG_AT OUT_FILE: one incarnation of the
// transactional chaos run's producer (tests/realcluster/chaos_tx_test.cpp, docs/chaos.md). Sends COUNT
// transactional messages, seq FIRST_SEQ.., RATE per second; each message's local answer and its check-back
// answer follow rmq_chaos::tx::plan_for(seq) (tests/support/chaos_tx_check.hpp), so any incarnation answers a
// check-back for any other's message as that one would have. The local transaction of seq HANG_AT (-1: none)
// never returns: the test kills the process there, between the half message and END_TRANSACTION. After its
// sends the process keeps answering check-backs until SIGTERM, then shuts down. OUT_FILE gets one line per
// event, flushed at once: `kind<TAB>seq` (attempt, executing, ended, check; see chaos_tx_check.hpp).

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "chaos_tx_check.hpp"

#include <fmt/format.h>

#include <rmq/transaction_producer.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

std::atomic<bool> stop{false};

extern "C" void on_signal(int /*signal*/) {
    stop.store(true);
}

/// The event log: every line flushed before the process goes on, so a kill -9 loses at most a line in
/// writing.
class Log {
public:
    explicit Log(std::FILE* f)
        : f_(f) {}

    void write(std::string_view kind, std::int64_t seq) {
        const std::scoped_lock lock(mutex_);
        fmt::print(f_, "{}\t{}\n", kind, seq);
        std::fflush(f_);
    }

private:
    std::mutex mutex_;
    std::FILE* f_;
};

rmq::LocalTransactionState state_of(rmq_chaos::tx::Local local) {
    switch (local) {
    case rmq_chaos::tx::Local::Commit:
        return rmq::LocalTransactionState::CommitMessage;
    case rmq_chaos::tx::Local::Rollback:
        return rmq::LocalTransactionState::RollbackMessage;
    default:
        return rmq::LocalTransactionState::Unknow;
    }
}

std::int64_t seq_of(const rmq::Message& m) {
    return std::stoll(std::string(m.keys()));
}

struct Listener {
    Log* log;
    std::int64_t hang_at;

    rmq::LocalTransactionState execute_local_transaction(const rmq::Message& m, int /*unused*/) {
        const auto seq = seq_of(m);
        log->write("executing", seq);
        while (seq == hang_at) {
            std::this_thread::sleep_for(std::chrono::seconds(1));  // killed here by the test
        }
        return state_of(rmq_chaos::tx::plan_for(seq).local);
    }

    rmq::LocalTransactionState check_local_transaction(const rmq::MessageExt& m) {
        const auto seq = seq_of(m);
        log->write("check", seq);
        return rmq_chaos::tx::plan_for(seq).final == rmq_chaos::tx::Final::Commit
                   ? rmq::LocalTransactionState::CommitMessage
                   : rmq::LocalTransactionState::RollbackMessage;
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 9) {
        fmt::print(
            stderr,
            "usage: rmq_chaos_tx_producer NAMESRV TOPIC GROUP FIRST_SEQ RATE COUNT HANG_AT OUT_FILE\n");
        return 2;
    }
    const std::string topic = argv[2];
    const std::int64_t first = std::atoll(argv[4]);
    const int rate = std::max(std::atoi(argv[5]), 1);
    const std::int64_t count = std::atoll(argv[6]);
    std::FILE* out = std::fopen(argv[8], "w");
    if (out == nullptr) {
        fmt::print(stderr, "cannot write {}\n", argv[8]);
        return 2;
    }
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    Log log(out);
    rmq::RemotingConfig rc;
    rc.namesrv_addr = argv[1];
    rmq::TransactionProducer<rmq::RemotingTransport, Listener> producer(
        rmq::RemotingTransport{rc},
        rmq::ProducerConfig{.producer_group = argv[3]},
        Listener{.log = &log, .hang_at = std::atoll(argv[7])});
    producer.start();
    const auto period = std::chrono::microseconds(1'000'000 / rate);
    auto next = std::chrono::steady_clock::now();
    for (std::int64_t seq = first; seq < first + count && !stop.load(); ++seq) {
        log.write("attempt", seq);
        try {
            producer.send_message_in_transaction(
                rmq::Message(topic, "tx", std::to_string(seq), fmt::format("tx {}", seq)), 0);
            log.write("ended", seq);
        } catch (const std::exception& e) {
            fmt::print(stderr, "send of {} failed: {}\n", seq, e.what());
        }
        next += period;
        std::this_thread::sleep_until(next);
    }
    while (!stop.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    producer.shutdown();
    std::fclose(out);
    return 0;
}
