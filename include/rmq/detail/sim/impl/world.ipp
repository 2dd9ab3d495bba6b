#pragma once

#include <algorithm>

#include <fmt/format.h>

#include <rmq/detail/sim/world.hpp>

namespace rmq::detail::sim {

RMQ_DECL World::World(std::uint64_t seed, BrokerConfig broker, int brokers)
    : clock_(std::make_shared<ManualClock>())
    , rng_(seed) {
    broker.clock = clock_;
    for (int i = 0; i < std::max(brokers, 1); ++i) {
        BrokerConfig config = broker;
        if (i > 0) {
            config.broker_name = fmt::format("broker-{}", static_cast<char>('a' + i));
        }
        auto state = std::make_shared<BrokerState>(std::move(config));
        state->start(state, true);
        brokers_.push_back(std::move(state));
        down_until_.push_back(0);
    }
}

RMQ_DECL World::~World() {
    shutdown();
}

RMQ_DECL void World::shutdown() {
    for (const auto& b : brokers_) {
        b->stop();
    }
    // Destroyed outside the container: destroying a callback may post another event.
    auto dropped = std::move(events_);
    events_.clear();
    dropped.clear();
}

RMQ_DECL std::optional<std::size_t> World::broker_index(const std::string& name) const {
    for (std::size_t i = 0; i < brokers_.size(); ++i) {
        if (brokers_[i]->config().broker_name == name) {
            return i;
        }
    }
    return std::nullopt;
}

RMQ_DECL void World::take_down(std::size_t i, std::int64_t until) {
    brokers_.at(i)->restart();
    down_until_.at(i) = until;
}

RMQ_DECL bool World::chance(double p) {
    if (p <= 0) {
        return false;
    }
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p;
}

RMQ_DECL std::int64_t World::uniform(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, std::max(lo, hi))(rng_);
}

RMQ_DECL std::size_t World::add_member() {
    members_.emplace_back();
    return members_.size() - 1;
}

RMQ_DECL void World::attach(std::size_t member, DrivenMember hooks) {
    members_.at(member).hooks = std::make_shared<const DrivenMember>(std::move(hooks));
}

RMQ_DECL void World::detach(std::size_t member) {
    members_.at(member).hooks.reset();
}

RMQ_DECL void World::crash(std::size_t member) {
    members_.at(member).crashed = true;
}

RMQ_DECL void World::pause(std::size_t member, std::int64_t until) {
    members_.at(member).paused_until = until;
}

RMQ_DECL void World::at(std::int64_t when, std::function<void()> fn) {
    events_.emplace(std::make_pair(when, ++event_sequence_), std::move(fn));
}

RMQ_DECL bool World::runnable(const Member& m) const {
    return m.hooks && !m.crashed && m.paused_until <= now();
}

RMQ_DECL bool World::run_due_event() {
    if (events_.empty() || events_.begin()->first.first > now()) {
        return false;
    }
    auto fn = std::move(events_.begin()->second);
    events_.erase(events_.begin());
    fn();
    return true;
}

RMQ_DECL std::optional<std::int64_t> World::next_deadline() const {
    std::optional<std::int64_t> next;
    const auto consider = [&next](std::int64_t t) {
        next = next ? std::min(*next, t) : t;
    };
    for (const auto& b : brokers_) {
        if (const auto d = b->next_deadline()) {
            consider(*d);
        }
    }
    if (!events_.empty()) {
        consider(events_.begin()->first.first);
    }
    for (const auto& m : members_) {
        if (!m.hooks || m.crashed) {
            continue;
        }
        if (const auto d = m.hooks->next_deadline()) {
            consider(std::max(*d, m.paused_until));
        }
        if (m.paused_until > now()) {
            consider(m.paused_until);  // its queued consume tasks wait for it
        }
    }
    return next;
}

RMQ_DECL bool World::step() {
    // Sources of work: each broker's callbacks, due events, then each member's loop and pool. The first one
    // tried is drawn at random, the others follow in turn: every ready source can go first.
    const std::size_t nb = brokers_.size();
    const std::size_t sources = nb + 1 + 2 * members_.size();
    const auto first = static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(sources) - 1));
    for (std::size_t i = 0; i < sources; ++i) {
        const std::size_t s = (first + i) % sources;
        bool ran = false;
        if (s < nb) {
            ran = brokers_[s]->run_one_callback();
        } else if (s == nb) {
            ran = run_due_event();
        } else {
            Member& m = members_[(s - nb - 1) / 2];
            if (runnable(m)) {
                // Copied: the task may detach the member (shutdown) while it runs.
                const auto hooks = m.hooks;
                ran = ((s - nb - 1) % 2 == 0) ? hooks->run_loop_task() : hooks->run_consume_task();
            }
        }
        if (ran) {
            ++steps_;
            return true;
        }
    }
    const auto next = next_deadline();
    if (!next) {
        return false;
    }
    clock_->advance(Millis(std::max<std::int64_t>(*next - now(), 1)));
    return true;
}

RMQ_DECL bool World::run_until(std::int64_t deadline, const std::function<bool()>& done) {
    while (!done()) {
        if (now() > deadline || !step()) {
            return done();
        }
    }
    return true;
}

}  // namespace rmq::detail::sim
