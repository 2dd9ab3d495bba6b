#pragma once

/// @file sim/pop_trace.hpp
/// What a simulation run with POP members (rmq::sim::Options::pop) records beside rmq::sim::Trace (every
/// message a pop returned, every ack lost) and the POP checker, rmq::sim::check_pop: nothing lost, no order
/// rule, and every redelivery explained by what became of the message's previous pop. See
/// docs/simulation.md.

#include <cstdint>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/sim/trace.hpp>

namespace rmq::sim {

/// One message a POP member's pop returned, recorded by its transport when the broker answered.
struct Popped {
    std::int64_t time = 0;  ///< virtual ms of the broker's answer (the pop's check point starts here)
    int member = 0;
    int key = 0;
    int seq = 0;
    std::int64_t invisible_millis = 0;
    int reconsume_times = 0;
    /// The answer never reached the member (Faults::pop_drop): the message comes back after its invisible
    /// time.
    bool answer_lost = false;
};

/// An ACK_MESSAGE lost on its way (Faults::ack_drop): the message comes back after its invisible time.
struct AckLost {
    std::int64_t time = 0;
    int member = 0;
    int key = 0;
    int seq = 0;
};

/// A POP run's records, in the order they happened.
struct PopTrace {
    std::vector<Popped> popped;
    std::vector<AckLost> acks_lost;

    /// FNV-1a over every record: two runs of one seed have equal hashes.
    [[nodiscard]] std::uint64_t hash() const noexcept;
};

/// Judges a POP run (docs/simulation.md lists the rules): `lost` as rmq::sim::check counts it; no order or
/// ownership rule; `duplicates` counts successful handlings beyond the first and `unexplained_duplicates`
/// the redeliveries (pops of a message popped before) that nothing explains. A redelivery is explained by
/// the message's previous pop: its answer or its ack was lost, a handling of it failed (RECONSUME_LATER), or
/// its member crashed or was paused — each only once that pop's invisible time (a failure: the retry delay,
/// 10 s at least) had passed — or a broker restart within a second after it (the restart rewound the
/// group's pop offsets), or the message was stored twice. `pause_max_millis`: how long a pause lasts at most
/// (Faults::pause_max_millis).
[[nodiscard]] Verdict
check_pop(const Trace& trace, const PopTrace& pops, std::int64_t pause_max_millis = 150000);

}  // namespace rmq::sim

#if RMQ_INCLUDE_IMPL
#    include <rmq/sim/impl/pop_trace.ipp>
#endif
