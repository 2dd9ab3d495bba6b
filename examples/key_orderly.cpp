// Per-key orderly consumption (docs/policies/key_orderly.md): account ledgers where only the entries of one
// account must be applied in order. rmq::Orderly would run one listener call per queue at a time;
// rmq::KeyOrderly runs the accounts of one queue in parallel and keeps each account's entries in order.
//
// The producer routes every entry of an account to one queue (a selector by account id): a key's order is
// kept only within a queue. The key is the first of the message's KEYS ("acct-<n> entry-<i>" → "acct-<n>");
// rmq::KeyOrderlyBy<Extractor> takes any other key function.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/order/key_orderly.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

constexpr int accounts = 20;
constexpr int entries_per_account = 10;
constexpr int total = accounts * entries_per_account;

}  // namespace

int main() {
    rmq::InProcessBroker broker;
    broker.create_topic("Ledger", 2);

    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "ledger_writer"});
    producer.start();
    auto by_account = [](std::span<const rmq::MessageQueue> mqs, const rmq::Message&, int account) {
        return mqs[static_cast<std::size_t>(account) % mqs.size()];
    };
    for (int entry = 0; entry < entries_per_account; ++entry) {
        for (int account = 0; account < accounts; ++account) {
            rmq::Message msg(
                "Ledger", "", fmt::format("acct-{} entry-{}", account, entry), fmt::format("{}", entry));
            (void)producer.send(msg, by_account, account);
        }
    }
    producer.shutdown();

    std::mutex mutex;
    std::condition_variable cv;
    std::map<std::string, std::vector<int>> ledgers;  // account → entries in the order applied
    int applied = 0;
    int running = 0;
    int max_running = 0;

    rmq::Consumer<rmq::KeyOrderly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>
        consumer{broker.connect(),
                 rmq::ConsumerConfig{.consumer_group = "ledger_group",
                                     .consume_from_where = rmq::ConsumeFromWhere::FirstOffset}};
    consumer.subscribe("Ledger", "*");
    // The same listener as rmq::Orderly; every call gets entries of one account.
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeOrderlyContext&) {
        {
            const std::lock_guard lock(mutex);
            max_running = std::max(max_running, ++running);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a database write
        {
            const std::lock_guard lock(mutex);
            --running;
            for (const auto& msg : msgs) {
                ledgers[std::string(rmq::FirstKey{}(msg))].push_back(std::stoi(msg.body()));
                ++applied;
            }
        }
        cv.notify_all();
        return rmq::ConsumeOrderlyStatus::Success;
    });
    consumer.start();
    {
        std::unique_lock lock(mutex);
        cv.wait_for(lock, std::chrono::seconds(60), [&] { return applied >= total; });
    }
    consumer.shutdown();

    const std::lock_guard lock(mutex);
    const bool in_order = std::all_of(ledgers.begin(), ledgers.end(), [](const auto& ledger) {
        return std::is_sorted(ledger.second.begin(), ledger.second.end()) &&
               ledger.second.size() == static_cast<std::size_t>(entries_per_account);
    });
    // Two queues: rmq::Orderly would never run more than two calls at once.
    if (applied != total || ledgers.size() != static_cast<std::size_t>(accounts) || !in_order ||
        max_running <= 2) {
        fmt::print("FAILED: {} of {} entries, {} accounts, in order: {}, at most {} calls at once\n",
                   applied,
                   total,
                   ledgers.size(),
                   in_order,
                   max_running);
        return 1;
    }
    fmt::print(
        "{} ledger entries of {} accounts applied, each account in order, more calls at once than queues\n",
        total,
        accounts);
    return 0;
}
