#pragma once

/// @file detail/trace/dispatcher.hpp
/// Java's AsyncTraceDispatcher: a bounded queue of trace records that the sending and consuming threads
/// fill without waiting for its reader, drained by one thread into trace messages (records grouped by traced
/// topic and trace topic, up to a size limit per message).

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/lockfree/spsc_queue.hpp>

#include <rmq/clock.hpp>
#include <rmq/message.hpp>
#include <rmq/trace.hpp>

namespace rmq::detail::trace {

/// TraceConstants.GROUP_NAME_PREFIX.
inline constexpr std::string_view group_name_prefix = "_INNER_TRACE_PRODUCER";

struct DispatcherOptions {
    /// The trace topic (customized_trace_topic, else RMQ_SYS_TRACE_TOPIC).
    std::string trace_topic{rmq_sys_trace_topic};
    /// Records waiting at most (Java's traceContextQueue: 2048); a further one is dropped and counted.
    std::size_t queue_capacity = 2048;
    /// Records per drain (traceMsgBatchNum, at most 20 as in Java); a drain starts as soon as as many wait.
    std::size_t batch_num = 10;
    /// A trace message's body stays below this many bytes unless one record is larger (Java: 128000).
    std::size_t max_msg_size = 128000;
    /// Fewer records than batch_num are sent once this many ms passed since the last drain (Java: 5000).
    std::int64_t flush_interval = 5000;
};

/// Sends one trace message (its topic, body and KEYS set) and calls `done` once, with null or why it failed
/// (it may also throw instead); asynchronous like Java's trace sends, so that the drain thread keeps up with
/// a consumer instead of waiting a round trip per trace message.
using TraceSendDone = std::function<void(std::exception_ptr)>;
using TraceSend = std::function<void(const Message&, TraceSendDone)>;

/// What a SubAfter record adds to the SubBefore it joins; the record itself is built on the drain thread, so
/// a listener call copies no trace bean.
struct AfterPart {
    bool success = false;
    ConsumeReturnType how = ConsumeReturnType::Success;
    std::size_t call_size = 0;
    std::int64_t now = 0;
};

/// One queued record: its context itself, or (with `after`) the SubAfter record joining the SubBefore
/// context. A SubBefore context is shared with its listener call (which joins it later); any other record
/// owns its context, so queuing it is one allocation.
struct Record {
    std::shared_ptr<const TraceContext> shared;
    std::optional<TraceContext> owned;
    std::optional<AfterPart> after;

    [[nodiscard]] const TraceContext& context() const noexcept { return owned ? *owned : *shared; }
};

/// Thread-safe: append() from any thread; start() and shutdown() from the owner.
class Dispatcher {
public:
    Dispatcher(DispatcherOptions options, TraceSend send, std::shared_ptr<Clock> clock);
    Dispatcher(const Dispatcher&) = delete;
    Dispatcher& operator=(const Dispatcher&) = delete;
    ~Dispatcher();

    /// Queues a record; never waits. False (and counted in TraceStats::dropped, logged) when the queue is
    /// full.
    bool append(TraceContext ctx) noexcept;

    /// Queues a shared record, or with `after` the SubAfter record joining it; never waits, as above.
    bool append(std::shared_ptr<const TraceContext> ctx,
                std::optional<AfterPart> after = std::nullopt) noexcept;

    /// Starts the draining thread.
    void start();

    /// Sends every record still queued, then stops the thread. Idempotent.
    void shutdown();

    [[nodiscard]] const std::string& trace_topic() const noexcept { return options_.trace_topic; }

    [[nodiscard]] TraceStats stats() const noexcept;

private:
    bool push(Record* record) noexcept;
    bool locked_push(Record* record) noexcept;
    void run();
    /// One drain: up to batch_num records when `force`, or when enough wait, or when the interval passed.
    /// False when nothing was due.
    bool drain(bool force);
    void send_records(const std::vector<std::unique_ptr<Record>>& records);
    void send_group(const std::vector<TraceTransferBean>& beans);
    void send_one(const std::set<std::string>& keys, std::string data);
    void on_sent(std::size_t bytes, const std::exception_ptr& error) noexcept;

    DispatcherOptions options_;
    TraceSend send_;
    std::shared_ptr<Clock> clock_;
    // One consumer (the drain thread, or shutdown's caller without one); producers take push_mutex_.
    // boost::lockfree::queue's node freelist is not ThreadSanitizer-clean (boostorg/lockfree#78), and
    // an uncontended lock per record costs less than the record's allocation.
    std::mutex push_mutex_;
    boost::lockfree::spsc_queue<Record*> queue_;
    std::atomic<std::size_t> pending_{0};
    std::atomic<std::uint64_t> appended_{0};
    std::atomic<std::uint64_t> dropped_{0};
    std::atomic<std::uint64_t> sent_{0};
    std::atomic<std::uint64_t> failed_{0};
    std::int64_t last_flush_ = 0;  // drain thread
    std::mutex mutex_;
    std::condition_variable cv_;
    bool stopping_ = false;  // guarded by mutex_
    std::thread worker_;
};

}  // namespace rmq::detail::trace

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/trace/impl/dispatcher.ipp>
#endif
