#pragma once

/// @file order/key_orderly.hpp
/// rmq::KeyOrderly: per-key orderly consumption (docs/policies/key_orderly.md). Queues are locked at the
/// broker as for rmq::Orderly, but inside a queue only the messages of one key are serialised: different
/// keys run concurrently on the consume pool, at most `max_in_flight_per_queue` calls per queue. Written on
/// the public order facade (rmq::OrderHost) only.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <rmq/consume_context.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/order/host.hpp>
#include <rmq/order/orderly_common.hpp>
#include <rmq/process_queue.hpp>

namespace rmq {

/// The default key of rmq::KeyOrderly: the first key of the KEYS property (keys are separated by spaces,
/// leading spaces skipped); a message without keys has the empty key.
struct FirstKey {
    [[nodiscard]] std::string_view operator()(const MessageExt& msg) const noexcept {
        const std::string_view keys = msg.keys();
        const auto begin = keys.find_first_not_of(' ');
        if (begin == std::string_view::npos) {
            return {};
        }
        const auto end = keys.find(' ', begin);
        return keys.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    }
};

/// A key extractor of rmq::KeyOrderlyBy: default-constructible, called as `const E&` with a message, and
/// answering something a std::string can be built from (std::string, std::string_view, const char*).
template <class E>
concept KeyExtractor =
    std::default_initializable<E> && std::invocable<const E&, const MessageExt&> &&
    std::constructible_from<std::string, std::invoke_result_t<const E&, const MessageExt&>>;

/// Order policy for per-key orderly consumption: the listener of rmq::Orderly, every call gets messages of
/// one key (as `Extractor` defines it) in queue-offset order, never two calls of one key at once; keys of one
/// queue run concurrently, at most `MaxInFlightPerQueue` listener calls per queue.
template <KeyExtractor Extractor, std::size_t MaxInFlightPerQueue = 16>
struct KeyOrderlyBy {
    static_assert(MaxInFlightPerQueue >= 1, "rmq::KeyOrderlyBy: MaxInFlightPerQueue must be at least 1");

    using Context = ConsumeOrderlyContext;
    using Status = ConsumeOrderlyStatus;
    using Listener = std::function<std::optional<Status>(std::span<const MessageExt>, Context&)>;
    using KeyOf = Extractor;

    static constexpr std::string_view listener_signature =
        "(std::span<const rmq::MessageExt>, rmq::ConsumeOrderlyContext&) -> rmq::ConsumeOrderlyStatus";
    static constexpr bool requires_queue_lock = true;
    static constexpr bool span_flow_control = false;
    static constexpr bool unlimited_retries_by_default = true;
    /// An exception or nullopt from the listener: retry the key's batch after the suspend time.
    static constexpr Status failure_status = Status::SuspendCurrentQueueAMoment;

    static constexpr bool is_success(Status status) noexcept {
        return status == Status::Success || status == Status::Commit;
    }

    /// Listener calls of one queue running at once (one hot queue cannot take the whole pool).
    static constexpr std::size_t max_in_flight_per_queue = MaxInFlightPerQueue;
    /// A consume task yields its thread after this long (fairness between queues on the pool), ms.
    static constexpr std::int64_t max_time_consume_continuously = 1000;
    /// Bounds of a suspend pause (ms), as rmq::Orderly.
    static constexpr std::int64_t min_suspend_millis = 10;
    static constexpr std::int64_t max_suspend_millis = 30000;
    /// How long rebalance waits for running listener calls before giving up on releasing a queue (ms).
    static constexpr std::int64_t release_wait_millis = 1000;

    template <class Host>
    class Service;
};

/// Per-key orderly consumption keyed by the first message key (rmq::FirstKey).
using KeyOrderly = KeyOrderlyBy<FirstKey>;

/// The dispatcher the Consumer instantiates; Host is rmq::OrderHost<KeyOrderlyBy<...>> (order/host.hpp).
///
/// Per owned queue: a FIFO of waiting messages per key, a ready list of keys with messages and no call
/// running (round robin), and up to max_in_flight_per_queue consume tasks, each taking the next ready key's
/// batch. Every message is also put in the queue's ProcessQueue and removed when its key committed it, so
/// the committed offset is the smallest offset not consumed yet (the min-offset rule).
template <KeyExtractor Extractor, std::size_t MaxInFlightPerQueue>
template <class Host>
class KeyOrderlyBy<Extractor, MaxInFlightPerQueue>::Service {
    using Policy = KeyOrderlyBy<Extractor, MaxInFlightPerQueue>;

public:
    explicit Service(Host& host)
        : host_(host) {}

    /// Clustering: renew every owned queue's broker lock each lock_renewal_interval (first after 1 s).
    void start() {
        if (host_.clustering()) {
            orderly::schedule_lock_all(
                host_, stopped_, std::min<std::int64_t>(1000, host_.config().lock_renewal_interval));
        }
    }

    /// A pull found messages (loop thread): cache them, append each to its key's FIFO, start consume tasks.
    void
    on_pulled(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq, std::vector<MessageExt> msgs) {
        if (pq->dropped()) {
            return;  // a late pull of a released queue: no state to keep for it
        }
        const auto qs = state_for(mq, pq);
        // A pull never goes back within one ProcessQueue's life; this guard keeps a key's FIFO ordered
        // anyway.
        std::erase_if(msgs, [&](const MessageExt& m) { return m.queue_offset() <= qs->max_offset_seen; });
        if (msgs.empty()) {
            return;
        }
        qs->max_offset_seen = msgs.back().queue_offset();
        auto batch = std::make_shared<std::vector<MessageExt>>(std::move(msgs));
        (void)pq->put_messages_shared(
            batch);  // before the FIFOs: a finished call must find its offsets cached
        std::size_t spawn = 0;
        {
            const std::lock_guard lock(qs->mutex);
            for (std::size_t i = 0; i < batch->size(); ++i) {
                auto& [key, ks] = *qs->keys.try_emplace(std::string(extract_((*batch)[i]))).first;
                ks.pending.push_back(Pending{batch, i, -1});
                if (ks.phase == Phase::Idle) {
                    make_ready(*qs, key, ks);
                }
            }
            spawn = spawn_count(*qs);
        }
        submit_workers(qs, spawn);
    }

    /// Rebalance drops a queue (loop thread): wait up to 1 s until no listener call of it runs, then release
    /// the broker lock. False (retried at the next rebalance) while a call still runs.
    bool release_queue(const MessageQueue& mq, ProcessQueue& pq) {
        const auto qs = find_state(mq, pq);
        if (host_.clustering()) {
            if (qs && !wait_calls_done(*qs)) {
                return false;
            }
            host_.unlock_queues({mq});
            pq.set_locked(false);
        }
        forget(mq, pq);
        return true;
    }

    void stop() { stopped_.store(true); }

    /// Shutdown, after the listeners drained: release every broker lock (Java's unlockAll(false)).
    void after_drain() {
        if (host_.clustering()) {
            host_.unlock_all();
        }
        const std::lock_guard lock(states_mutex_);
        states_.clear();
    }

private:
    enum class Phase { Idle, Ready, Running, Suspended };

    /// A message waiting for its key's turn: shared with the ProcessQueue's cache (never changed there), with
    /// the reconsume times of a retry (-1: as pulled).
    struct Pending {
        std::shared_ptr<std::vector<MessageExt>> batch;
        std::size_t index = 0;
        int reconsume_times = -1;

        [[nodiscard]] const MessageExt& msg() const noexcept { return (*batch)[index]; }

        [[nodiscard]] std::int64_t offset() const noexcept { return msg().queue_offset(); }

        [[nodiscard]] MessageExt copy() const {
            MessageExt m = msg();
            if (reconsume_times >= 0) {
                m.set_reconsume_times(reconsume_times);
            }
            return m;
        }
    };

    struct KeyState {
        std::deque<Pending> pending;  // queue-offset order
        std::vector<Pending> taken;   // auto-commit off: consumed (Success) but not committed yet
        Phase phase = Phase::Idle;
    };

    using KeyEntry = std::pair<const std::string, KeyState>;

    /// One owned queue, for the life of its ProcessQueue.
    struct QueueState : std::enable_shared_from_this<QueueState> {
        QueueState(MessageQueue q, std::shared_ptr<ProcessQueue> p)
            : mq(std::move(q))
            , pq(std::move(p)) {}

        const MessageQueue mq;
        const std::shared_ptr<ProcessQueue> pq;
        std::int64_t max_offset_seen = -1;  // loop thread only
        std::mutex mutex;                   // guards the members below
        std::unordered_map<std::string, KeyState> keys;
        std::deque<KeyEntry*> ready;  // keys in Phase::Ready, round robin (map nodes are stable)
        std::size_t workers = 0;      // consume tasks submitted or running
        std::size_t running = 0;      // keys in Phase::Running
        std::size_t calls = 0;        // listener calls running (release waits for none)
        bool relocking = false;
    };

    /// What one consume task took: a key and its batch.
    struct Run {
        KeyEntry* key = nullptr;
        std::vector<Pending> items;
    };

    std::shared_ptr<QueueState> state_for(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq) {
        const std::lock_guard lock(states_mutex_);
        auto& slot = states_[mq];
        if (!slot || slot->pq != pq) {  // a queue taken on again has a new ProcessQueue: start afresh
            slot = std::make_shared<QueueState>(mq, pq);
        }
        return slot;
    }

    std::shared_ptr<QueueState> find_state(const MessageQueue& mq, const ProcessQueue& pq) {
        const std::lock_guard lock(states_mutex_);
        const auto it = states_.find(mq);
        return it != states_.end() && it->second->pq.get() == &pq ? it->second : nullptr;
    }

    void forget(const MessageQueue& mq, const ProcessQueue& pq) {
        const std::lock_guard lock(states_mutex_);
        if (const auto it = states_.find(mq); it != states_.end() && it->second->pq.get() == &pq) {
            states_.erase(it);
        }
    }

    /// Polls rather than waiting on a condition variable with a timeout: g++ 12's TSan does not intercept
    /// the clock-based waits (see rmq::Orderly::release_queue).
    bool wait_calls_done(QueueState& qs) {
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::milliseconds(release_wait_millis);
        while (true) {
            {
                const std::lock_guard lock(qs.mutex);
                if (qs.calls == 0) {
                    return true;
                }
            }
            if (std::chrono::steady_clock::now() >= deadline) {
                return false;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

    static void make_ready(QueueState& qs, const std::string& key, KeyState& ks) {
        ks.phase = Phase::Ready;
        qs.ready.push_back(&*qs.keys.find(key));
    }

    /// How many more consume tasks the queue needs (caller holds qs.mutex): one per running or ready key, at
    /// most max_in_flight_per_queue.
    static std::size_t spawn_count(QueueState& qs) {
        const std::size_t want = std::min(max_in_flight_per_queue, qs.running + qs.ready.size());
        const std::size_t spawn = want > qs.workers ? want - qs.workers : 0;
        qs.workers += spawn;
        return spawn;
    }

    void submit_workers(const std::shared_ptr<QueueState>& qs, std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) {
            host_.submit([this, qs] { work(qs); });
        }
    }

    /// A consume task (consume thread): takes ready keys' batches until none is ready, the queue is gone or
    /// unlocked, or its time slice ended.
    void work(const std::shared_ptr<QueueState>& qs) {
        const auto& clock = host_.clock();
        const std::int64_t begin = clock->steady_millis();
        Run run;
        while (true) {
            const Next next = take_next(*qs, run, clock->steady_millis() - begin);
            if (next == Next::Stop) {
                return;
            }
            if (next == Next::Yield) {
                submit_workers(qs, 1);  // to the back of the pool's queue: other queues' tasks run first
                return;
            }
            if (next == Next::Relock) {
                relock_later(qs, 100);
                return;
            }
            consume(qs, run);
        }
    }

    enum class Next { Consume, Stop, Yield, Relock };

    /// Under qs.mutex: the next ready key and up to consume_message_batch_max_size of its messages, or why
    /// this task ends (its worker slot is given up, except for Yield, which hands it to a new task).
    Next take_next(QueueState& qs, Run& run, std::int64_t elapsed) {
        const std::lock_guard lock(qs.mutex);
        const ProcessQueue& pq = *qs.pq;
        Next end = Next::Consume;
        if (pq.dropped() || host_.stopping() || qs.ready.empty()) {
            end = Next::Stop;
        } else if (host_.clustering() && (!pq.locked() || pq.is_lock_expired())) {
            end = qs.relocking ? Next::Stop : Next::Relock;
            qs.relocking = true;
        } else if (elapsed > max_time_consume_continuously) {
            return Next::Yield;
        }
        if (end != Next::Consume) {
            --qs.workers;
            return end;
        }
        run.key = qs.ready.front();
        qs.ready.pop_front();
        KeyState& ks = run.key->second;
        ks.phase = Phase::Running;
        ++qs.running;
        ++qs.calls;
        const auto batch =
            static_cast<std::size_t>(std::max(1, host_.config().consume_message_batch_max_size));
        run.items.clear();
        while (run.items.size() < batch && !ks.pending.empty()) {
            run.items.push_back(std::move(ks.pending.front()));
            ks.pending.pop_front();
        }
        return Next::Consume;
    }

    /// The lock was lost (renewal failed): relock from the loop, then dispatch again; retried every 3 s.
    void relock_later(const std::shared_ptr<QueueState>& qs, std::int64_t delay) {
        host_.schedule(delay, [this, qs] {
            const bool gone = stopped_.load() || qs->pq->dropped();
            const bool locked = !gone && host_.lock_queue(qs->mq);
            if (!gone && !locked) {
                relock_later(qs, 3000);
                return;
            }
            std::size_t spawn = 0;
            {
                const std::lock_guard lock(qs->mutex);
                qs->relocking = false;
                spawn = locked ? spawn_count(*qs) : 0;
            }
            submit_workers(qs, spawn);
        });
    }

    /// One listener call for the key `run` took, then its result (consume thread).
    void consume(const std::shared_ptr<QueueState>& qs, Run& run) {
        std::vector<MessageExt> msgs;
        msgs.reserve(run.items.size());
        for (const auto& item : run.items) {
            msgs.push_back(item.copy());
        }
        host_.reset_retry_topic(std::span<MessageExt>(msgs));
        Context ctx(qs->mq);
        const auto call = host_.call_listener(qs->mq, msgs, ctx);
        host_.record_consume_rt(qs->mq.topic, call->rt_millis);
        process_result(*qs, run, msgs, ctx, call->status);
    }

    /// What a result does to the key (Orderly's processConsumeResult scoped to the key).
    struct Outcome {
        bool commit = false;       // remove the batch and the key's taken messages from the cache
        bool keep_taken = false;   // auto-commit off, Success: the batch joins the key's taken messages
        bool put_back = false;     // the batch (with its reconsume times) goes back to the key's front
        bool rollback = false;     // the key's taken messages and the batch go back as they were
        std::int64_t suspend = 0;  // > 0: the key waits this long (ms)
    };

    Outcome
    outcome_of(const QueueState& qs, std::vector<MessageExt>& msgs, const Context& ctx, Status status) {
        const auto n = static_cast<std::int64_t>(msgs.size());
        const std::int64_t pause = orderly::suspend_millis(
            host_, ctx.suspend_current_queue_time_millis(), min_suspend_millis, max_suspend_millis);
        const auto failed = [&] {
            host_.record_consume_failed(qs.mq.topic, n);
            return orderly::check_reconsume_times(host_, msgs);
        };
        Outcome out;
        if (ctx.auto_commit()) {
            if (status == Status::SuspendCurrentQueueAMoment) {
                out.put_back = failed();
                out.commit = !out.put_back;  // every message went to the DLQ
            } else {
                if (status != Status::Success) {
                    host_.log(
                        "group [{}]: {} returns Commit/Rollback with auto-commit on; treated as Success",
                        host_.group(),
                        qs.mq);
                }
                host_.record_consume_ok(qs.mq.topic, n);
                out.commit = true;
            }
        } else if (status == Status::Success) {
            host_.record_consume_ok(qs.mq.topic, n);
            out.keep_taken = true;
        } else if (status == Status::Commit) {
            out.commit = true;
        } else if (status == Status::Rollback) {
            out.rollback = true;
        } else {
            out.put_back = failed();
            out.keep_taken = !out.put_back;  // sent to the DLQ, committed with the key's next Commit
        }
        out.suspend = out.put_back || out.rollback ? pause : 0;
        return out;
    }

    /// Applies the outcome under qs.mutex, then commits outside it and re-files the key.
    void process_result(
        QueueState& qs, Run& run, std::vector<MessageExt>& msgs, const Context& ctx, Status status) {
        const Outcome out = outcome_of(qs, msgs, ctx, status);
        std::string key = run.key->first;  // run.key is cleared by refile
        std::vector<std::int64_t> done;
        {
            const std::lock_guard lock(qs.mutex);
            KeyState& ks = run.key->second;
            if (out.commit) {
                for (const auto& item : ks.taken) {
                    done.push_back(item.offset());
                }
                ks.taken.clear();
                for (const auto& item : run.items) {
                    done.push_back(item.offset());
                }
            } else if (out.keep_taken) {
                ks.taken.insert(ks.taken.end(), run.items.begin(), run.items.end());
            } else if (out.put_back) {
                for (std::size_t i = run.items.size(); i-- > 0;) {
                    run.items[i].reconsume_times = msgs[i].reconsume_times();
                    ks.pending.push_front(std::move(run.items[i]));
                }
            } else if (out.rollback) {
                ks.pending.insert(ks.pending.begin(), run.items.begin(), run.items.end());
                ks.pending.insert(ks.pending.begin(), ks.taken.begin(), ks.taken.end());
                ks.taken.clear();
            }
        }
        // Committed before the key is re-filed, so a later call of the key never commits before this one.
        commit(qs, done);
        if (refile(qs, run, out.suspend)) {
            suspend_key(qs.shared_from_this(), std::move(key), out.suspend);
        }
    }

    void commit(QueueState& qs, std::span<const std::int64_t> offsets) {
        if (offsets.empty()) {
            return;
        }
        const std::int64_t offset = qs.pq->remove_messages(offsets);
        if (offset >= 0 && !qs.pq->dropped()) {
            host_.update_offset(qs.mq, offset, true);
        }
    }

    /// The call is over: the key is ready again, suspended (true: the caller schedules its wake-up), or idle
    /// (forgotten when nothing of it is left).
    bool refile(QueueState& qs, Run& run, std::int64_t suspend) {
        const std::lock_guard lock(qs.mutex);
        --qs.calls;
        --qs.running;
        KeyEntry& entry = *run.key;
        KeyState& ks = entry.second;
        run.key = nullptr;
        run.items.clear();
        if (suspend > 0) {
            ks.phase = Phase::Suspended;
            return true;
        }
        if (!ks.pending.empty()) {
            make_ready(qs, entry.first, ks);
        } else if (ks.taken.empty()) {
            qs.keys.erase(qs.keys.find(entry.first));
        } else {
            ks.phase = Phase::Idle;
        }
        return false;
    }

    /// SuspendCurrentQueueAMoment / Rollback for one key: its later messages wait, other keys keep going.
    void suspend_key(std::shared_ptr<QueueState> self, std::string key, std::int64_t millis) {
        host_.schedule(millis, [this, self = std::move(self), key = std::move(key)] {
            std::size_t spawn = 0;
            {
                const std::lock_guard lock(self->mutex);
                const auto it = self->keys.find(key);
                if (it == self->keys.end() || it->second.phase != Phase::Suspended) {
                    return;
                }
                if (it->second.pending.empty()) {
                    it->second.phase = Phase::Idle;
                } else {
                    make_ready(*self, key, it->second);
                }
                spawn = spawn_count(*self);
            }
            submit_workers(self, spawn);
        });
    }

    Host& host_;
    [[no_unique_address]] Extractor extract_{};
    std::atomic<bool> stopped_{false};
    std::mutex states_mutex_;
    std::map<MessageQueue, std::shared_ptr<QueueState>> states_;
};

}  // namespace rmq
