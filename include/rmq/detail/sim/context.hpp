#pragma once

/// @file detail/sim/context.hpp
/// What a simulation's members' transports (rmq::sim::SimTransport) and the rmq::sim::Simulation share: the
/// world, the run's options and trace, whether faults strike now.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <rmq/message_queue.hpp>
#include <rmq/sim/options.hpp>
#include <rmq/sim/pop_trace.hpp>
#include <rmq/sim/trace.hpp>
#include <rmq/transport/broker_config.hpp>

#include <rmq/detail/sim/world.hpp>

namespace rmq::detail::sim {

/// What the members' transports and the Simulation share.
struct Context {
    Context(std::uint64_t seed, BrokerConfig broker, rmq::sim::Options o)
        : world(seed, std::move(broker), o.brokers)
        , options(std::move(o)) {}

    World world;
    rmq::sim::Options options;
    rmq::sim::Trace trace;
    /// POP runs: what the pops returned, the acks lost, and the (key, seq) of each receipt handed out.
    rmq::sim::PopTrace pop_trace;
    std::map<std::string, std::pair<int, int>, std::less<>> receipts;
    bool faults_on = false;

    void record(rmq::sim::FaultKind kind, int member, std::string queue = {}) {
        trace.faults.push_back(rmq::sim::FaultEvent{world.now(), kind, member, std::move(queue)});
    }

    [[nodiscard]] bool strike(double p) { return faults_on && world.chance(p); }
};

/// A queue as the trace names it: topic:id on the first broker (broker-a), topic@broker:id on the others.
inline std::string queue_name(const MessageQueue& mq) {
    if (mq.broker_name == BrokerConfig{}.broker_name) {
        return fmt::format("{}:{}", mq.topic, mq.queue_id);
    }
    return fmt::format("{}@{}:{}", mq.topic, mq.broker_name, mq.queue_id);
}

}  // namespace rmq::detail::sim
