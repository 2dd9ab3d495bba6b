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
#include <rmq/fwd.hpp>
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
template <class Extractor, std::size_t MaxInFlightPerQueue>  // defaults in rmq/fwd.hpp
struct KeyOrderlyBy {
    static_assert(KeyExtractor<Extractor>,
                  "rmq::KeyOrderlyBy: the key extractor must be default-constructible and callable as "
                  "`const E&` with a const rmq::MessageExt&, answering something a std::string can be built "
                  "from (rmq::KeyExtractor)");
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

    template <class Host>
    class Service;
};

/// The dispatcher the Consumer instantiates; Host is rmq::OrderHost<KeyOrderlyBy<...>> (order/host.hpp).
///
/// Per owned queue: a FIFO of waiting messages per key, a ready list of keys with messages and no call
/// running (round robin), and up to max_in_flight_per_queue consume tasks, each taking the next ready key's
/// batch. Every message is also put in the queue's ProcessQueue and removed when its key committed it, so
/// the committed offset is the smallest offset not consumed yet (the min-offset rule).
template <class Extractor, std::size_t MaxInFlightPerQueue>
template <class Host>
class KeyOrderlyBy<Extractor, MaxInFlightPerQueue>::Service {
    using Policy = KeyOrderlyBy<Extractor, MaxInFlightPerQueue>;

public:
    explicit Service(Host& host)
        : host_(host) {}

    /// Cached messages (event loop): each joins its key's FIFO; consume tasks start for ready keys.
    void on_messages(const ConsumeQueue& q, const MessageBatch& batch) {
        const auto qs = state_for(q);
        if (!qs) {
            return;  // a late pull of a released queue: no state to keep for it
        }
        std::size_t spawn = 0;
        {
            const std::lock_guard lock(qs->mutex);
            for (std::size_t i = 0; i < batch.size(); ++i) {
                // A pull never goes back within one ownership; this guard keeps a key's FIFO ordered anyway.
                if (batch[i].queue_offset() <= qs->max_offset_seen) {
                    continue;
                }
                qs->max_offset_seen = batch[i].queue_offset();
                auto& [key, ks] = *qs->keys.try_emplace(std::string(extract_(batch[i]))).first;
                ks.pending.push_back(Pending{batch.slice(i, 1), -1});
                if (ks.phase == Phase::Idle) {
                    make_ready(*qs, key, ks);
                }
            }
            spawn = spawn_count(*qs);
        }
        submit_workers(qs, spawn);
    }

    /// A queue taken on: its key state starts empty.
    void on_queue_added(const ConsumeQueue& q) {
        const std::lock_guard lock(states_mutex_);
        states_.insert_or_assign(q.mq(), std::make_shared<QueueState>(q));
    }

    /// A queue let go (no listener call of it runs: the host waited for them): forget its keys.
    bool on_queue_removed(const ConsumeQueue& q) {
        const std::lock_guard lock(states_mutex_);
        if (const auto it = states_.find(q.mq()); it != states_.end() && it->second->q == q) {
            states_.erase(it);
        }
        return true;
    }

private:
    enum class Phase { Idle, Ready, Running, Suspended };

    /// A message waiting for its key's turn: shared with the queue's cache (never changed there; a call
    /// gets a copy), with the reconsume times of a retry (-1: as pulled).
    struct Pending {
        MessageBatch msg;  // of one message
        int reconsume_times = -1;

        [[nodiscard]] std::int64_t offset() const noexcept { return msg[0].queue_offset(); }
    };

    struct KeyState {
        std::deque<Pending> pending;  // queue-offset order
        std::vector<Pending> taken;   // auto-commit off: consumed (Success) but not committed yet
        Phase phase = Phase::Idle;
    };

    using KeyEntry = std::pair<const std::string, KeyState>;

    /// One owned queue, for one ownership.
    struct QueueState : std::enable_shared_from_this<QueueState> {
        explicit QueueState(ConsumeQueue queue)
            : q(std::move(queue)) {}

        const ConsumeQueue q;
        std::mutex mutex;  // guards the members below
        std::int64_t max_offset_seen = -1;
        std::unordered_map<std::string, KeyState> keys;
        std::deque<KeyEntry*> ready;  // keys in Phase::Ready, round robin (map nodes are stable)
        std::size_t workers = 0;      // consume tasks submitted or running
        std::size_t running = 0;      // keys in Phase::Running
        bool relocking = false;
    };

    /// What one consume task took: a key and its batch.
    struct Run {
        KeyEntry* key = nullptr;
        std::vector<Pending> items;
    };

    std::shared_ptr<QueueState> state_for(const ConsumeQueue& q) {
        const std::lock_guard lock(states_mutex_);
        const auto it = states_.find(q.mq());
        return it != states_.end() && it->second->q == q ? it->second : nullptr;
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
        const std::int64_t begin = clock->coarse_steady_millis();
        Run run;
        while (true) {
            const Next next = take_next(*qs, run, clock->coarse_steady_millis() - begin);
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
        Next end = Next::Consume;
        if (qs.q.dropped() || host_.stopping() || qs.ready.empty()) {
            end = Next::Stop;
        } else if (host_.clustering() && !qs.q.locked()) {
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
            const bool gone = host_.stopping() || qs->q.dropped();
            const bool locked = !gone && host_.lock_queue(qs->q);
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
            msgs.push_back(item.msg.copy(0));
            if (item.reconsume_times >= 0) {
                msgs.back().set_reconsume_times(item.reconsume_times);
            }
        }
        Context ctx(qs->q.mq());
        const auto call = host_.consume(qs->q, std::span<MessageExt>(msgs), ctx);
        // Dropped meanwhile: nothing more for this key; the new owner starts from the committed offset.
        process_result(*qs, run, msgs, ctx, call ? call->status : Status::SuspendCurrentQueueAMoment, !call);
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
            host_.record_outcome(qs.q.mq().topic, 0, n);
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
                        qs.q.mq());
                }
                host_.record_outcome(qs.q.mq().topic, n, 0);
                out.commit = true;
            }
        } else if (status == Status::Success) {
            host_.record_outcome(qs.q.mq().topic, n, 0);
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
    void process_result(QueueState& qs,
                        Run& run,
                        std::vector<MessageExt>& msgs,
                        const Context& ctx,
                        Status status,
                        bool skipped) {
        const Outcome out = skipped ? Outcome{.put_back = true} : outcome_of(qs, msgs, ctx, status);
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
        host_.ack(qs.q, done);
        if (refile(qs, run, out.suspend)) {
            suspend_key(qs.shared_from_this(), std::move(key), out.suspend);
        }
    }

    /// The call is over: the key is ready again, suspended (true: the caller schedules its wake-up), or idle
    /// (forgotten when nothing of it is left).
    bool refile(QueueState& qs, Run& run, std::int64_t suspend) {
        const std::lock_guard lock(qs.mutex);
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
    std::mutex states_mutex_;
    std::map<MessageQueue, std::shared_ptr<QueueState>> states_;
};

}  // namespace rmq
