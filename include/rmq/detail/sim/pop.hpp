#pragma once

/// @file detail/sim/pop.hpp
/// The POP side of a simulated member's transport (rmq::sim::SimTransport): what a pop returned goes into
/// the run's rmq::sim::PopTrace (each receipt remembered, so that a lost ack names its message), and the
/// faults of rmq::sim::Faults that concern POP: a pop's answer lost (the broker popped, the member sees a
/// failure at its timeout), an ack lost.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>
#include <rmq/protocol.hpp>
#include <rmq/sim/options.hpp>
#include <rmq/sim/pop_trace.hpp>

#include <rmq/detail/sim/context.hpp>

namespace rmq::detail::sim {

/// Records the messages of a broker's POP answer (lost on its way: `lost`) and their receipts.
inline void record_popped(Context& ctx, int member, const PopResult& result, bool lost) {
    for (const auto& msg : result.msg_found_list) {
        const int key = rmq::sim::key_of(msg);
        const int seq = rmq::sim::seq_of(msg);
        if (key < 0 || seq < 0) {
            continue;
        }
        ctx.pop_trace.popped.push_back(rmq::sim::Popped{
            ctx.world.now(), member, key, seq, result.invisible_time, msg.reconsume_times(), lost});
        if (const auto receipt = msg.property(property::pop_ck)) {
            ctx.receipts.insert_or_assign(*receipt, std::make_pair(key, seq));
        }
    }
}

/// The completion a member's asynchronous pop gets through the simulation: the answer recorded, and lost
/// (Faults::pop_drop, while faults are on) or handed on. A lost answer fails at the member's pull timeout.
inline PopCompletion pop_completion(const std::shared_ptr<Context>& ctx, int member, PopCompletion done) {
    return [ctx, member, asked = ctx->world.now(), done = std::move(done)](PopResult result,
                                                                           std::exception_ptr error) {
        World& world = ctx->world;
        if (error) {
            done(std::move(result), std::move(error));
            return;
        }
        const bool lost = !result.msg_found_list.empty() && ctx->strike(ctx->options.faults.pop_drop);
        record_popped(*ctx, member, result, lost);
        if (!lost) {
            done(std::move(result), nullptr);
            return;
        }
        ctx->record(rmq::sim::FaultKind::PopAnswerDropped, member);
        world.at(std::max(asked + ctx->options.faults.pull_timeout_millis, world.now() + 1), [done] {
            done(PopResult{}, std::make_exception_ptr(Timeout("simulated: the pop's answer was lost")));
        });
    };
}

/// Whether an ack is lost (Faults::ack_drop, while faults are on); recorded with the message it acked.
inline bool ack_lost(Context& ctx, int member, const AckArgs& args) {
    if (!ctx.strike(ctx.options.faults.ack_drop)) {
        return false;
    }
    ctx.record(rmq::sim::FaultKind::AckDropped, member);
    if (const auto it = ctx.receipts.find(args.extra_info); it != ctx.receipts.end()) {
        ctx.pop_trace.acks_lost.push_back(
            rmq::sim::AckLost{ctx.world.now(), member, it->second.first, it->second.second});
    }
    return true;
}

}  // namespace rmq::detail::sim
