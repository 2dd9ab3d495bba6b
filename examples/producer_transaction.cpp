// Transactional messages (Java's TransactionProducer sample) on the embedded broker, on a manual clock so
// that the broker's check-back comes at once: three orders, one committed by its local transaction, one
// rolled back, one left unknown and committed when the broker checks back.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/transaction_producer.hpp>
#include <rmq/transport/in_process.hpp>

namespace {

/// The application's side: a table of order states (the "local transaction") the listener reads and
/// writes. Both methods may run at once (the caller's thread, a check thread), hence the mutex.
struct OrderListener {
    std::shared_ptr<std::mutex> mutex = std::make_shared<std::mutex>();
    std::shared_ptr<std::map<std::string, rmq::LocalTransactionState>> orders =
        std::make_shared<std::map<std::string, rmq::LocalTransactionState>>();

    /// Runs right after the half message is stored; `decision` stands for the local transaction's result.
    rmq::LocalTransactionState execute_local_transaction(const rmq::Message& msg,
                                                         rmq::LocalTransactionState decision) {
        const std::lock_guard lock(*mutex);
        (*orders)[msg.transaction_id()] = decision == rmq::LocalTransactionState::Unknow
                                              ? rmq::LocalTransactionState::CommitMessage  // done later
                                              : decision;
        return decision;
    }

    /// The broker asks about a half message still pending: look the transaction up.
    rmq::LocalTransactionState check_local_transaction(const rmq::MessageExt& msg) {
        const std::lock_guard lock(*mutex);
        const auto it = orders->find(msg.transaction_id());
        return it == orders->end() ? rmq::LocalTransactionState::Unknow : it->second;
    }
};

}  // namespace

int main() {
    auto clock = std::make_shared<rmq::ManualClock>();
    rmq::InProcessBroker broker{rmq::BrokerConfig{.clock = clock}};
    broker.create_topic("TopicTest", 1);
    rmq::TransactionProducer<rmq::InProcessTransport, OrderListener> producer(
        broker.connect(), rmq::ProducerConfig{.producer_group = "please_rename_unique_group_name"}, {});
    producer.start();

    using State = rmq::LocalTransactionState;
    for (const auto decision : {State::CommitMessage, State::RollbackMessage, State::Unknow}) {
        const auto r =
            producer.send_message_in_transaction(rmq::Message("TopicTest", "TagA", "order"), decision);
        fmt::print("sent {} ({}), transaction id {}\n",
                   r.msg_id,
                   r.local_transaction_state == State::CommitMessage     ? "commit"
                   : r.local_transaction_state == State::RollbackMessage ? "rollback"
                                                                         : "unknown",
                   r.transaction_id);
    }
    const auto visible = [&] {
        return broker.max_offset(broker.queue("TopicTest", 0));
    };
    const std::int64_t before_check = visible();
    // transactionCheckInterval (60 s) later the broker asks about the unknown one; the answer comes from a
    // producer thread, so wait for it.
    clock->advance(rmq::Millis(60000));
    for (int i = 0; i < 500 && visible() < 2; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const std::int64_t after_check = visible();
    producer.shutdown();
    fmt::print("visible: {} before the check-back, {} after it, {} half messages pending\n",
               before_check,
               after_check,
               broker.half_message_count());
    return before_check == 1 && after_check == 2 && broker.half_message_count() == 0 ? 0 : 1;
}
