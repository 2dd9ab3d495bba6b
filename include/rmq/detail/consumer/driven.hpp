#pragma once

/// @file detail/consumer/driven.hpp
/// How a consumer runs without threads under rmq::sim: a transport that says it is driven gets the
/// consumer's loop and consume pool as steps to run on the simulation's one thread, in virtual time.

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>

namespace rmq::detail {

/// What a driven consumer hands its driver. Valid from start() until detach_driven().
struct DrivenMember {
    /// Runs one loop task whose deadline has come; false when none.
    std::function<bool()> run_loop_task;
    /// Runs one queued consume task (a listener call and its result); false when none.
    std::function<bool()> run_consume_task;
    /// The clock time of the loop's next task; nullopt when it has none.
    std::function<std::optional<std::int64_t>()> next_deadline;
};

/// A transport that can put its consumer under a driver (rmq::sim::SimTransport). The consumer asks driven()
/// at start(); other transports do not model this and their consumers keep their threads.
template <class T>
concept DrivenTransport = requires(T& t, DrivenMember m) {
    { t.driven() } -> std::convertible_to<bool>;
    t.attach_driven(std::move(m));
    t.detach_driven();
};

}  // namespace rmq::detail
