#pragma once

/// @file detail/sim/world.hpp
/// rmq::detail::sim::World: the one-threaded engine under rmq::sim::Simulation. It owns the virtual clock,
/// a driven embedded broker, the members' driven loops and pools, timed events (late answers, scenario
/// faults) and the seeded random generator that picks what runs next. Nothing here has a thread: one call
/// of step() runs one unit of work or moves virtual time to the next deadline, so one seed is one exact
/// history.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <rmq/clock.hpp>
#include <rmq/config.hpp>
#include <rmq/transport/broker_config.hpp>
#include <rmq/transport/in_process.hpp>

#include <rmq/detail/broker/broker_state.hpp>
#include <rmq/detail/consumer/driven.hpp>

namespace rmq::detail::sim {

class World {
public:
    /// `brokers` driven brokers configured by `broker` (its clock is replaced by the world's virtual clock),
    /// named broker-a, broker-b, ... (the first keeps `broker`'s name).
    World(std::uint64_t seed, BrokerConfig broker, int brokers = 1);
    World(const World&) = delete;
    World& operator=(const World&) = delete;
    ~World();

    [[nodiscard]] const std::shared_ptr<ManualClock>& clock() const noexcept { return clock_; }

    /// The first broker.
    [[nodiscard]] const std::shared_ptr<BrokerState>& broker() const noexcept { return brokers_.front(); }

    [[nodiscard]] const std::shared_ptr<BrokerState>& broker(std::size_t i) const { return brokers_.at(i); }

    [[nodiscard]] std::size_t broker_count() const noexcept { return brokers_.size(); }

    /// The index of the broker named `name`; nullopt for an unknown name.
    [[nodiscard]] std::optional<std::size_t> broker_index(const std::string& name) const;

    /// A new connection to the first broker.
    [[nodiscard]] InProcessTransport connect() const { return InProcessTransport(broker()); }

    /// A new connection to broker `i`.
    [[nodiscard]] InProcessTransport connect(std::size_t i) const { return InProcessTransport(broker(i)); }

    // ---- broker outages ----
    /// Broker `i` goes down (it restarts: held pulls fail, locks and memberships are lost) and is reachable
    /// again at virtual time `until`.
    void take_down(std::size_t i, std::int64_t until);

    [[nodiscard]] bool broker_up(std::size_t i) const { return down_until_.at(i) <= now(); }

    /// Virtual steady time (ms since the simulation began).
    [[nodiscard]] std::int64_t now() const { return clock_->steady_millis(); }

    // ---- randomness (every choice of a run comes from here) ----
    /// True with probability `p`.
    bool chance(double p);
    /// Uniform in [lo, hi].
    std::int64_t uniform(std::int64_t lo, std::int64_t hi);

    // ---- members ----
    /// A new member slot; its consumer attaches when it starts.
    std::size_t add_member();
    void attach(std::size_t member, DrivenMember hooks);
    void detach(std::size_t member);
    /// The member is never run again (its process died; the broker learns it only by expiry).
    void crash(std::size_t member);
    /// The member is not run before virtual time `until` (a stop-the-world pause).
    void pause(std::size_t member, std::int64_t until);

    [[nodiscard]] bool crashed(std::size_t member) const { return members_.at(member).crashed; }

    [[nodiscard]] bool paused(std::size_t member) const { return members_.at(member).paused_until > now(); }

    // ---- events ----
    /// Runs `fn` at virtual time `when` (in posting order among equal times).
    void at(std::int64_t when, std::function<void()> fn);

    /// Runs one unit of work (a broker callback, a due event, a member's loop task or consume task, picked
    /// at random among those ready) or, when none is ready, advances the clock to the next deadline. False
    /// when nothing is pending at all.
    bool step();

    /// Steps until `done()` or virtual time passes `deadline`; true when `done()`.
    bool run_until(std::int64_t deadline, const std::function<bool()>& done);

    /// Units of work run so far.
    [[nodiscard]] std::uint64_t steps() const noexcept { return steps_; }

    /// The end of a run: stops the broker (its held pulls are answered "shut down", its queued callbacks run)
    /// and drops every pending event. Pending work holds callbacks into the members, whose transports hold
    /// the world: without this the members and the world would keep each other alive.
    void shutdown();

private:
    struct Member {
        std::shared_ptr<const DrivenMember> hooks;
        bool crashed = false;
        std::int64_t paused_until = 0;
    };

    [[nodiscard]] bool runnable(const Member& m) const;
    bool run_due_event();
    std::optional<std::int64_t> next_deadline() const;

    std::shared_ptr<ManualClock> clock_;
    std::mt19937_64 rng_;
    std::vector<std::shared_ptr<BrokerState>> brokers_;
    std::vector<std::int64_t> down_until_;
    std::vector<Member> members_;
    std::multimap<std::pair<std::int64_t, std::uint64_t>, std::function<void()>> events_;
    std::uint64_t event_sequence_ = 0;
    std::uint64_t steps_ = 0;
};

}  // namespace rmq::detail::sim

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/sim/impl/world.ipp>
#endif
