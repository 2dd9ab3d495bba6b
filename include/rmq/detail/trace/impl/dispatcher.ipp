#pragma once

/// @file detail/trace/impl/dispatcher.ipp
/// Dispatcher's definitions.

#include <algorithm>
#include <chrono>
#include <exception>
#include <string_view>

#include <fmt/format.h>

#include <rmq/log.hpp>

#include <rmq/detail/trace/dispatcher.hpp>
#include <rmq/detail/trace/hooks.hpp>

namespace rmq::detail::trace {

/// How long the drain thread sleeps when nothing wakes it (a lost wake-up costs at most this).
inline constexpr std::chrono::milliseconds drain_poll{20};

RMQ_DECL Dispatcher::Dispatcher(DispatcherOptions options, TraceSend send, std::shared_ptr<Clock> clock)
    : options_(std::move(options))
    , send_(std::move(send))
    , clock_(std::move(clock))
    , queue_(options_.queue_capacity) {
    options_.batch_num = std::clamp<std::size_t>(options_.batch_num, 1, 20);
}

RMQ_DECL Dispatcher::~Dispatcher() {
    try {
        shutdown();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
    }
    Record* left = nullptr;
    while (queue_.pop(left)) {
        delete left;  // NOLINT(cppcoreguidelines-owning-memory): the queue holds raw pointers
    }
}

RMQ_DECL bool Dispatcher::append(TraceContext ctx) noexcept {
    Record* record = nullptr;
    try {
        record =
            new Record{nullptr, std::move(ctx), std::nullopt};  // NOLINT(cppcoreguidelines-owning-memory)
    } catch (...) {  // NOLINT(bugprone-empty-catch): counted as a drop by push
    }
    return push(record);
}

RMQ_DECL bool Dispatcher::append(std::shared_ptr<const TraceContext> ctx,
                                 std::optional<AfterPart> after) noexcept {
    Record* record = nullptr;
    try {
        if (ctx) {
            record =
                new Record{std::move(ctx), std::nullopt, after};  // NOLINT(cppcoreguidelines-owning-memory)
        }
    } catch (...) {  // NOLINT(bugprone-empty-catch): counted as a drop by push
    }
    return push(record);
}

RMQ_DECL bool Dispatcher::locked_push(Record* record) noexcept {
    const std::lock_guard lock(push_mutex_);
    return queue_.push(record);
}

/// Queues `record` (taking it), or counts a drop when it is null or the queue is full.
RMQ_DECL bool Dispatcher::push(Record* record) noexcept {
    // The ring is sized at construction: a full queue refuses.
    if (record == nullptr || !locked_push(record)) {
        delete record;  // NOLINT(cppcoreguidelines-owning-memory)
        const auto n = dropped_.fetch_add(1, std::memory_order_relaxed) + 1;
        if ((n & (n - 1)) == 0) {  // the 1st, 2nd, 4th, ... drop: a flood logs a few lines, not one each
            try {
                log_message(LogLevel::Warn,
                            fmt::format("trace queue of {} full: {} trace records dropped so far",
                                        options_.trace_topic,
                                        n));
            } catch (...) {  // NOLINT(bugprone-empty-catch): append never throws
            }
        }
        return false;
    }
    appended_.fetch_add(1, std::memory_order_relaxed);
    if (pending_.fetch_add(1, std::memory_order_acq_rel) + 1 == options_.batch_num) {
        cv_.notify_one();
    }
    return true;
}

RMQ_DECL void Dispatcher::start() {
    const std::lock_guard lock(mutex_);
    if (!worker_.joinable() && !stopping_) {
        last_flush_ = clock_->steady_millis();
        worker_ = std::thread([this] { run(); });
    }
}

RMQ_DECL void Dispatcher::shutdown() {
    {
        const std::lock_guard lock(mutex_);
        if (stopping_) {
            return;
        }
        stopping_ = true;
    }
    cv_.notify_one();
    if (worker_.joinable()) {
        worker_.join();
    } else {
        while (drain(true)) {
        }
    }
}

RMQ_DECL TraceStats Dispatcher::stats() const noexcept {
    return TraceStats{.appended = appended_.load(std::memory_order_relaxed),
                      .dropped = dropped_.load(std::memory_order_relaxed),
                      .messages_sent = sent_.load(std::memory_order_relaxed),
                      .messages_failed = failed_.load(std::memory_order_relaxed)};
}

RMQ_DECL void Dispatcher::run() {
    for (;;) {
        bool stop = false;
        {
            std::unique_lock lock(mutex_);
            cv_.wait_for(lock, drain_poll, [this] {
                return stopping_ || pending_.load(std::memory_order_acquire) >= options_.batch_num;
            });
            stop = stopping_;
        }
        if (stop) {
            while (drain(true)) {
            }
            return;
        }
        while (drain(false)) {
        }
    }
}

RMQ_DECL bool Dispatcher::drain(bool force) {
    const std::size_t waiting = pending_.load(std::memory_order_acquire);
    if (waiting == 0) {
        return false;
    }
    const std::int64_t now = clock_->steady_millis();
    if (!force && waiting < options_.batch_num && now - last_flush_ < options_.flush_interval) {
        return false;
    }
    std::vector<std::unique_ptr<Record>> records;
    records.reserve(options_.batch_num);
    Record* record = nullptr;
    while (records.size() < options_.batch_num && queue_.pop(record)) {
        records.emplace_back(record);
        pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
    last_flush_ = now;
    send_records(records);
    return !records.empty();
}

/// AsyncDataSendTask.sendTraceData: records grouped by traced topic (and trace topic), each group's records
/// concatenated into as few messages as the size limit allows.
RMQ_DECL void Dispatcher::send_records(const std::vector<std::unique_ptr<Record>>& records) {
    std::map<std::string, std::vector<TraceTransferBean>> groups;
    for (const auto& record : records) {
        const TraceContext& c = record->context();
        if (!c.region_id || c.trace_beans.empty()) {
            continue;
        }
        try {
            const auto& topic = c.trace_beans.front().topic;
            const auto& a = record->after;
            groups[topic ? *topic : std::string("null")].push_back(
                a ? encode_trace_context(sub_after_record(c, a->success, a->how, a->call_size, a->now))
                  : encode_trace_context(c));
        } catch (const std::exception& e) {
            log_message(LogLevel::Warn, fmt::format("trace record not encoded: {}", e.what()));
        }
    }
    for (const auto& [topic, beans] : groups) {
        send_group(beans);
    }
}

RMQ_DECL void Dispatcher::send_group(const std::vector<TraceTransferBean>& beans) {
    std::string data;
    std::set<std::string> keys;
    for (const auto& bean : beans) {
        // Java checks the size after appending (a message may exceed the producer's limit and fail); rmq
        // sends what it has before a record would take it past the limit.
        if (!data.empty() && data.size() + bean.trans_data.size() > options_.max_msg_size) {
            send_one(keys, std::move(data));
            data.clear();
            keys.clear();
        }
        data += bean.trans_data;
        keys.insert(bean.trans_key.begin(), bean.trans_key.end());
    }
    if (!data.empty()) {
        send_one(keys, std::move(data));
    }
}

RMQ_DECL void Dispatcher::send_one(const std::set<std::string>& keys, std::string data) {
    Message m(options_.trace_topic, std::move(data));
    std::string joined;
    for (const auto& k : keys) {
        joined += joined.empty() ? "" : " ";
        joined += k;
    }
    if (!joined.empty()) {
        m.set_keys(joined);
    }
    const std::size_t bytes = m.body().size();
    try {
        send_(m, [this, bytes](const std::exception_ptr& error) { on_sent(bytes, error); });
    } catch (...) {
        on_sent(bytes, std::current_exception());
    }
}

RMQ_DECL void Dispatcher::on_sent(std::size_t bytes, const std::exception_ptr& error) noexcept {
    if (!error) {
        sent_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    failed_.fetch_add(1, std::memory_order_relaxed);
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        try {
            log_message(LogLevel::Warn,
                        fmt::format("send trace data to {} failed ({} bytes lost): {}",
                                    options_.trace_topic,
                                    bytes,
                                    e.what()));
        } catch (...) {  // NOLINT(bugprone-empty-catch): counted; a log that fails is not fatal
        }
    } catch (...) {  // NOLINT(bugprone-empty-catch): counted above
    }
}

}  // namespace rmq::detail::trace
