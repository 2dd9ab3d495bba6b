#pragma once

/// @file consume_context.hpp
/// What a listener gets besides its messages (Java's ConsumeConcurrentlyContext / ConsumeOrderlyContext) and
/// what it answers (the two status enums), plus ReadOffsetType used by the offset stores.

#include <cstdint>
#include <limits>
#include <utility>

#include <rmq/message_queue.hpp>

namespace rmq {

/// Java's ConsumeConcurrentlyStatus: the answer of a concurrent listener for its batch.
enum class ConsumeConcurrentlyStatus {
    ConsumeSuccess,  ///< messages up to ack_index succeeded, the rest are sent back
    ReconsumeLater,  ///< the whole batch is sent back for a later retry
};

/// Java's ConsumeOrderlyStatus: the answer of an orderly listener for its batch.
enum class ConsumeOrderlyStatus {
    Success,                     ///< commit (auto-commit) or keep the batch in the consuming window
    Rollback,                    ///< deprecated in Java: put the batch back (only without auto-commit)
    Commit,                      ///< deprecated in Java: commit now (only without auto-commit)
    SuspendCurrentQueueAMoment,  ///< retry the batch after a pause, blocking the queue meanwhile
};

/// Java's ReadOffsetType: where an offset store reads from.
enum class ReadOffsetType {
    ReadFromMemory,        ///< the in-memory table only (-1 when absent)
    ReadFromStore,         ///< the backing store (file or broker), refreshing memory
    MemoryFirstThenStore,  ///< memory when present, else the store
};

/// Java's ConsumeConcurrentlyContext: per-call context of a concurrent listener.
class ConsumeConcurrentlyContext {
public:
    /// Context for a batch taken from `mq`.
    explicit ConsumeConcurrentlyContext(MessageQueue mq)
        : message_queue_(std::move(mq)) {}

    /// The queue the batch came from.
    [[nodiscard]] const MessageQueue& message_queue() const noexcept { return message_queue_; }

    /// Delay level used when the batch is sent back: -1 straight to the DLQ, 0 broker's choice
    /// (3 + reconsume times), > 0 that level. Default 0.
    [[nodiscard]] int delay_level_when_next_consume() const noexcept {
        return delay_level_when_next_consume_;
    }

    /// Sets the send-back delay level (see delay_level_when_next_consume()).
    void set_delay_level_when_next_consume(int level) noexcept { delay_level_when_next_consume_ = level; }

    /// Index of the last successfully consumed message when the status is ConsumeSuccess; default
    /// INT32_MAX (the whole batch). Messages after it are sent back (clustering) or dropped (broadcasting).
    [[nodiscard]] int ack_index() const noexcept { return ack_index_; }

    /// Sets the acknowledged index (see ack_index()).
    void set_ack_index(int index) noexcept { ack_index_ = index; }

private:
    MessageQueue message_queue_;
    int delay_level_when_next_consume_ = 0;
    int ack_index_ = std::numeric_limits<std::int32_t>::max();
};

/// Java's ConsumeOrderlyContext: per-call context of an orderly listener.
class ConsumeOrderlyContext {
public:
    /// Context for a batch taken from `mq`.
    explicit ConsumeOrderlyContext(MessageQueue mq)
        : message_queue_(std::move(mq)) {}

    /// The queue the batch came from.
    [[nodiscard]] const MessageQueue& message_queue() const noexcept { return message_queue_; }

    /// Whether Success commits the batch at once (default true); false enables Commit/Rollback.
    [[nodiscard]] bool auto_commit() const noexcept { return auto_commit_; }

    /// Sets auto-commit (see auto_commit()).
    void set_auto_commit(bool on) noexcept { auto_commit_ = on; }

    /// Pause before retrying after SuspendCurrentQueueAMoment; -1 (default) means the consumer's
    /// suspend_current_queue_time_millis. The consumer clamps it to [10, 30000] ms like Java.
    [[nodiscard]] long suspend_current_queue_time_millis() const noexcept {
        return suspend_current_queue_time_millis_;
    }

    /// Sets the suspend time (see suspend_current_queue_time_millis()).
    void set_suspend_current_queue_time_millis(long millis) noexcept {
        suspend_current_queue_time_millis_ = millis;
    }

private:
    MessageQueue message_queue_;
    bool auto_commit_ = true;
    long suspend_current_queue_time_millis_ = -1;
};

}  // namespace rmq
