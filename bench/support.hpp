// The measuring harness shared by rmq_bench_consume (embedded broker) and rmq_bench_real_broker (a real
// RocketMQ broker): CPU and RSS probes, the raw pull loop, the JSON fields of a throughput run, and the
// rebalance/handover observer. One header so that both programs measure the same thing the same way.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <sys/resource.h>

#include <fmt/format.h>

#include <rmq/consumer.hpp>

namespace rmq_bench {

using SteadyClock = std::chrono::steady_clock;

inline double seconds_since(SteadyClock::time_point t0) {
    return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

/// User + system CPU seconds of the whole process (every thread: io, pull, consume).
inline double cpu_seconds() {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/// getrusage's high-water mark (KiB on Linux): the whole process, prefill included.
inline long maxrss_kb() {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/// A field of /proc/self/status in KiB (VmRSS, VmHWM), -1 when unavailable.
inline long proc_status_kb(std::string_view field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with(field) && line.size() > field.size() && line[field.size()] == ':') {
            return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
        }
    }
    return -1;
}

/// Resets VmHWM to the current RSS (Linux >= 4.0), so that the peak measured afterwards is the phase's own.
inline bool reset_peak_rss() {
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    out.flush();
    return static_cast<bool>(out);
}

/// Memory figures of one measured phase.
struct MemoryProbe {
    long base_kb = 0;        // RSS when the phase started
    bool hwm_reset = false;  // VmHWM was reset at the start: peak is the phase's own

    void start() {
        base_kb = proc_status_kb("VmRSS");
        hwm_reset = reset_peak_rss();
    }

    /// Peak RSS of the phase (KiB): VmHWM after the reset, else getrusage's process peak.
    [[nodiscard]] long peak_kb() const {
        const long hwm = hwm_reset ? proc_status_kb("VmHWM") : -1;
        return hwm > 0 ? hwm : maxrss_kb();
    }
};

/// The figures every throughput run reports, whatever the broker. The steady part starts once a fifth of the
/// target was consumed, so that start-up (connections, the first rebalance, a JIT) is outside it; the cold
/// start is the time to the first 100,000 messages. Negative: not reached.
struct Run {
    std::int64_t consumed = 0;
    bool complete = false;
    double seconds = 0;
    double cpu = 0;
    double first_100k_s = -1;
    double steady_msgs_per_s = -1;
    double steady_cpu_s_per_million = -1;
};

/// The run's JSON fields (no braces): consumed, complete, seconds, msgs_per_s, cpu_s, cpu_s_per_million.
inline std::string run_fields(const Run& r) {
    return fmt::format(
               "\"consumed\":{},\"complete\":{},\"seconds\":{:.4f},\"msgs_per_s\":{:.1f},\"cpu_s\":{:.4f},"
               "\"cpu_s_per_million\":{:.4f}",
               r.consumed,
               r.complete ? "true" : "false",
               r.seconds,
               r.seconds > 0 ? static_cast<double>(r.consumed) / r.seconds : 0.0,
               r.cpu,
               r.consumed > 0 ? r.cpu * 1e6 / static_cast<double>(r.consumed) : 0.0) +
           (r.first_100k_s >= 0 ? fmt::format(",\"first_100k_s\":{:.4f}", r.first_100k_s) : std::string()) +
           (r.steady_msgs_per_s >= 0
                ? fmt::format(",\"steady_msgs_per_s\":{:.1f},\"steady_cpu_s_per_million\":{:.4f}",
                              r.steady_msgs_per_s,
                              r.steady_cpu_s_per_million)
                : std::string());
}

/// One measured window: CPU, wall time and memory from start until a counter reaches its target (or the
/// time runs out).
struct Window {
    MemoryProbe mem;
    double cpu0 = 0;
    SteadyClock::time_point t0;

    void start() {
        mem.start();
        cpu0 = cpu_seconds();
        t0 = SteadyClock::now();
    }

    /// Polls `counter` every 0.5 ms (as the Java benchmark does) until it reaches `target` or `max_seconds`
    /// pass, noting when it passes 100,000 and a fifth of `target` (the start of the steady part).
    [[nodiscard]] Run
    wait(const std::atomic<std::int64_t>& counter, std::int64_t target, double max_seconds) const {
        constexpr std::int64_t cold_mark = 100'000;
        const std::int64_t warm_mark = target / 5;
        Run r;
        std::optional<std::pair<double, double>> warm;  // (seconds, cpu) when warm_mark was passed
        std::int64_t warm_count = 0;
        for (;;) {
            const auto n = counter.load(std::memory_order_relaxed);
            if (r.first_100k_s < 0 && n >= cold_mark) {
                r.first_100k_s = seconds_since(t0);
            }
            if (!warm && warm_mark > 0 && n >= warm_mark) {
                warm.emplace(seconds_since(t0), cpu_seconds() - cpu0);
                warm_count = n;
            }
            if (n >= target) {
                r.complete = true;
                break;
            }
            if (seconds_since(t0) > max_seconds) {
                break;
            }
            std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        r.seconds = seconds_since(t0);
        r.cpu = cpu_seconds() - cpu0;
        r.consumed = counter.load();
        if (warm && r.complete && r.consumed > warm_count && r.seconds > warm->first) {
            const auto steady_n = static_cast<double>(r.consumed - warm_count);
            r.steady_msgs_per_s = steady_n / (r.seconds - warm->first);
            r.steady_cpu_s_per_million = (r.cpu - warm->second) * 1e6 / steady_n;
        }
        return r;
    }
};

/// What a traced consumer's dispatcher did, on stderr: a dropped record costs less than a sent one, so the
/// figures of a --trace run are only comparable with the drops known.
inline void print_trace_stats(const rmq::TraceStats& t) {
    fmt::print(stderr,
               "trace: {} records appended, {} dropped, {} trace messages sent\n",
               t.appended,
               t.dropped,
               t.messages_sent);
}

inline double mb(long kb) {
    return static_cast<double>(kb) / 1024.0;
}

/// Command-line flags: `--name value` pairs (and bare switches), each stored into its target by the
/// target's type. Unknown flags and missing values throw std::invalid_argument.
class Flags {
public:
    Flags& on(std::string name, std::function<void(const std::string&)> set) {
        flags_.emplace_back(std::move(name), std::move(set));
        return *this;
    }

    Flags& add(std::string name, std::string& target) {
        return on(std::move(name), [&target](const std::string& v) { target = v; });
    }

    Flags& add(std::string name, int& target) {
        return on(std::move(name), [&target](const std::string& v) { target = std::stoi(v); });
    }

    Flags& add(std::string name, std::int64_t& target) {
        return on(std::move(name), [&target](const std::string& v) { target = std::stoll(v); });
    }

    Flags& add(std::string name, double& target) {
        return on(std::move(name), [&target](const std::string& v) { target = std::stod(v); });
    }

    /// A flag without a value.
    Flags& add_switch(std::string name, std::function<void()> set) {
        switches_.emplace_back(std::move(name), std::move(set));
        return *this;
    }

    void parse(int argc, char** argv) const {
        for (int i = 1; i < argc; ++i) {
            const std::string_view a = argv[i];
            if (const auto* sw = find(switches_, a)) {
                (*sw)();
            } else if (const auto* set = find(flags_, a)) {
                if (i + 1 >= argc) {
                    throw std::invalid_argument(fmt::format("{} needs a value", a));
                }
                (*set)(argv[++i]);
            } else {
                throw std::invalid_argument(fmt::format("unknown argument {}", a));
            }
        }
    }

private:
    template <class F>
    static const F* find(const std::vector<std::pair<std::string, F>>& table, std::string_view name) {
        const auto it =
            std::ranges::find(table, name, [](const auto& e) { return std::string_view(e.first); });
        return it == table.end() ? nullptr : &it->second;
    }

    std::vector<std::pair<std::string, std::function<void(const std::string&)>>> flags_;
    std::vector<std::pair<std::string, std::function<void()>>> switches_;
};

/// One pull in flight per queue, re-issued from its completion (as the consumer does), messages dropped:
/// what the broker can deliver through `Transport`, the limit of every pipeline on it.
template <class Transport>
struct PullLoop {
    Transport* transport = nullptr;
    rmq::PullArgs args;
    std::atomic<std::int64_t>* consumed = nullptr;
    std::atomic<int>* errors = nullptr;
    std::int64_t end = 0;

    static void issue(const std::shared_ptr<PullLoop>& self) {
        self->transport->pull(self->args, [self](rmq::Outcome<rmq::PullResult> outcome) {
            if (!outcome.ok()) {
                self->errors->fetch_add(1);
                return;
            }
            auto& r = outcome.value();
            self->consumed->fetch_add(static_cast<std::int64_t>(r.msg_found_list.size()),
                                      std::memory_order_relaxed);
            self->args.queue_offset = r.next_begin_offset;
            if (r.next_begin_offset < self->end) {
                issue(self);
            }
        });
    }
};

// ---- rebalance / handover -------------------------------------------------------------------------------

struct Delivery {
    int member;
    std::int32_t queue;
    std::int64_t offset;
    double t;  // seconds since the run began
};

struct Recorder {
    std::mutex mutex;
    std::vector<Delivery> deliveries;
    SteadyClock::time_point t0 = SteadyClock::now();

    void record(int member, std::span<const rmq::MessageExt> msgs) {
        const double t = seconds_since(t0);
        const std::lock_guard lock(mutex);
        for (const auto& m : msgs) {
            deliveries.push_back(Delivery{member, m.queue_id(), m.queue_offset(), t});
        }
    }

    std::vector<Delivery> snapshot() {
        const std::lock_guard lock(mutex);
        return deliveries;
    }
};

/// Outcome of one membership event.
struct Handover {
    double assign_ms = -1;    // until the members' allocations formed the final partition
    double handover_ms = -1;  // until every queue was delivered by its final owner only
    std::int64_t duplicates = 0;
    bool complete = false;
};

/// owner[q] = index of the member assigned queue q of `topic`, when the assignments form an exact partition.
template <class ConsumerT>
std::optional<std::vector<int>>
partition_of(const std::vector<ConsumerT*>& members, std::string_view topic, int queues) {
    std::vector<int> owner(static_cast<std::size_t>(queues), -1);
    for (std::size_t i = 0; i < members.size(); ++i) {
        for (const auto& mq : members[i]->assigned_queues()) {
            if (mq.topic != topic) {
                continue;
            }
            auto& slot = owner[static_cast<std::size_t>(mq.queue_id)];
            if (slot != -1) {
                return std::nullopt;
            }
            slot = static_cast<int>(i);
        }
    }
    if (std::ranges::find(owner, -1) != owner.end()) {
        return std::nullopt;
    }
    return owner;
}

/// Watches the event at `t_event` until every queue is delivered by its final owner only.
/// `member_ids[i]` maps the live member i to its recorder id; `seen_before` collects (queue, offset) pairs
/// to count duplicated deliveries across events.
template <class ConsumerT>
Handover observe(std::string_view topic,
                 int queues,
                 Recorder& rec,
                 const std::vector<ConsumerT*>& members,
                 const std::vector<int>& member_ids,
                 double t_event,
                 std::set<std::pair<int, std::int64_t>>& seen_before) {
    Handover h;
    const auto start = SteadyClock::now();
    std::optional<std::vector<int>> final_owner;
    while (seconds_since(start) < 90) {
        auto part = partition_of(members, topic, queues);
        if (part && (!final_owner || *part != *final_owner)) {
            final_owner = part;
            h.assign_ms = (seconds_since(rec.t0) - t_event) * 1000;
        }
        if (final_owner) {
            // Every queue delivered by its owner after every other member's last delivery of it?
            const auto ds = rec.snapshot();
            double worst = 0;
            bool all = true;
            for (int q = 0; q < queues; ++q) {
                const int owner_id =
                    member_ids[static_cast<std::size_t>((*final_owner)[static_cast<std::size_t>(q)])];
                double last_other = t_event;
                double first_owner_after_other = -1;
                for (const auto& d : ds) {
                    if (d.queue == q && d.t >= t_event && d.member != owner_id) {
                        last_other = std::max(last_other, d.t);
                    }
                }
                for (const auto& d : ds) {
                    if (d.queue == q && d.member == owner_id && d.t >= last_other && d.t >= t_event) {
                        first_owner_after_other = d.t;
                        break;
                    }
                }
                if (first_owner_after_other < 0) {
                    all = false;
                    break;
                }
                worst = std::max(worst, first_owner_after_other - t_event);
            }
            if (all && seconds_since(rec.t0) - t_event > worst + 1.0) {
                h.handover_ms = worst * 1000;
                h.complete = true;
                break;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Duplicates: deliveries after the event of a (queue, offset) delivered before.
    for (const auto& d : rec.snapshot()) {
        if (d.t >= t_event && !seen_before.insert({d.queue, d.offset}).second) {
            ++h.duplicates;
        }
    }
    return h;
}

/// What rebalance_sequence measured.
struct RebalanceSettings {
    std::string mode;  // the JSON "mode"
    std::string_view topic;
    int queues = 8;
    std::int64_t rate = 0;
    std::int64_t rebalance_interval = 0;
};

/// The membership sequence: members 0 and 1 start (settling, not reported as a handover), member 2 joins,
/// member 0 leaves. `make_member(id)` returns a unique_ptr to a subscribed consumer that records into `rec`;
/// `stop_traffic()` runs once the last event is observed. Prints one JSON line; 0 when every event completed.
template <class MakeMember, class StopTraffic>
int rebalance_sequence(const RebalanceSettings& s,
                       Recorder& rec,
                       MakeMember make_member,
                       StopTraffic stop_traffic) {
    using ConsumerT = typename decltype(make_member(0))::element_type;
    std::set<std::pair<int, std::int64_t>> seen;
    auto a = make_member(0);
    auto b = make_member(1);
    a->start();
    b->start();
    const Handover initial =
        observe<ConsumerT>(s.topic, s.queues, rec, {a.get(), b.get()}, {0, 1}, seconds_since(rec.t0), seen);
    auto c = make_member(2);
    const double t_join = seconds_since(rec.t0);
    c->start();
    const Handover join =
        observe<ConsumerT>(s.topic, s.queues, rec, {a.get(), b.get(), c.get()}, {0, 1, 2}, t_join, seen);
    const double t_leave = seconds_since(rec.t0);
    a->shutdown();
    const Handover leave =
        observe<ConsumerT>(s.topic, s.queues, rec, {b.get(), c.get()}, {1, 2}, t_leave, seen);
    stop_traffic();
    b->shutdown();
    c->shutdown();
    auto fmt_h = [](const Handover& h) {
        return fmt::format(
            "{{\"assign_ms\":{:.1f},\"handover_ms\":{:.1f},\"duplicates\":{},\"complete\":{}}}",
            h.assign_ms,
            h.handover_ms,
            h.duplicates,
            h.complete ? "true" : "false");
    };
    fmt::print("{{\"mode\":\"{}\",\"queues\":{},\"rate\":{},\"rebalance_interval_ms\":{},"
               "\"initial\":{},\"join\":{},\"leave\":{},\"deliveries\":{}}}\n",
               s.mode,
               s.queues,
               s.rate,
               s.rebalance_interval,
               fmt_h(initial),
               fmt_h(join),
               fmt_h(leave),
               rec.snapshot().size());
    std::fflush(stdout);
    return initial.complete && join.complete && leave.complete ? 0 : 1;
}

}  // namespace rmq_bench
