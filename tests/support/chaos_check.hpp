#pragma once

// The chaos suite's view of the one trace checker (rmq/detail/check/check.hpp, docs/chaos.md): its names in
// rmq_chaos, judged with the chaos rules (Options::rules = Rules::Chaos, the default), and the report as
// markdown. The real-cluster chaos programs (tests/chaos/) feed it the members' logs (tests/chaos/logs.hpp);
// rmq::sim::check feeds the same checker a simulation's trace.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <rmq/detail/check/check.hpp>

namespace rmq_chaos {

using namespace rmq::detail::check;  // NOLINT(google-build-using-namespace): the chaos suite's names for it

/// The report as a markdown section (a heading, a table of figures, examples of what went wrong).
[[nodiscard]] inline std::string to_markdown(const Report& r, std::string_view title, bool ordered) {
    const auto ms = [](std::int64_t us) {
        return fmt::format("{:.0f} ms", static_cast<double>(us) / 1000.0);
    };
    std::string out = fmt::format("### {}\n\n| figure | value |\n| --- | --- |\n", title);
    const auto row = [&](std::string_view name, const std::string& value) {
        out += fmt::format("| {} | {} |\n", name, value);
    };
    row("verdict", r.ok(ordered) ? "**ok**" : "**FAILED**");
    row("sent (SEND_OK) / send failures", fmt::format("{} / {}", r.sent, r.send_failures));
    row("handled (all) / unique", fmt::format("{} / {}", r.handled, r.unique));
    row("**lost**", fmt::format("**{}**", r.lost));
    row("handled but not in the sent log", fmt::format("{}", r.unknown));
    row("duplicates", fmt::format("{}", r.duplicates));
    for (int c = 0; c < cause_count; ++c) {
        const auto cause = static_cast<Cause>(c);
        const auto n = r.by(cause);
        if (n == 0 && (cause == Cause::SendDuplicated || cause == Cause::RetryCopy ||
                       cause == Cause::QueueFault || cause == Cause::PopLost)) {
            continue;  // the simulation's causes: the chaos logs hold no such fault
        }
        row(fmt::format("&nbsp;&nbsp;{}", to_string(cause)),
            cause == Cause::Unexplained ? fmt::format("**{}**", n) : fmt::format("{}", n));
    }
    row(fmt::format("**order violations** (out of order / interleaved){}", ordered ? "" : " — not promised"),
        fmt::format("**{}** ({} / {})", r.order_violations(), r.out_of_order, r.interleaved));
    row("rewinds", fmt::format("{}", r.rewinds));
    row("keys", fmt::format("{}", r.keys));
    row("longest stall of a key",
        r.keys == 0 ? std::string("-")
                    : fmt::format("{} (key {} seq {})",
                                  ms(r.longest_stall.wait_us),
                                  r.longest_stall.key,
                                  r.longest_stall.seq));
    std::string faults;
    for (const auto& [kind, n] : r.faults) {
        faults += fmt::format("{}{} {}", faults.empty() ? "" : ", ", kind, n);
    }
    row("faults injected", faults.empty() ? "none" : faults);
    if (r.shutdowns.empty()) {
        row("clean shutdowns", "none");
    } else {
        std::vector<std::int64_t> took;
        for (const auto& s : r.shutdowns) {
            took.push_back(s.done_us - s.requested_us);
        }
        std::sort(took.begin(), took.end());
        row("clean shutdowns: count / median / longest",
            fmt::format("{} / {} / {}", took.size(), ms(took[took.size() / 2]), ms(took.back())));
    }
    out += "\n";
    if (!r.lost_examples.empty()) {
        out += "Lost (first few):\n\n";
        for (const auto& l : r.lost_examples) {
            out += fmt::format("- {}\n", l);
        }
        out += "\n";
    }
    if (!r.unexplained_examples.empty()) {
        out += "Unexplained duplicates (first few):\n\n";
        for (const auto& d : r.unexplained_examples) {
            out += fmt::format("- {} key {} seq {}: {} at {} us, again {} at {} us\n",
                               d.msg_id,
                               d.key,
                               d.seq,
                               d.first_member,
                               d.previous_us,
                               d.member,
                               d.time_us);
        }
        out += "\n";
    }
    if (!r.violation_examples.empty()) {
        out += "Order violations (first few):\n\n";
        for (const auto& v : r.violation_examples) {
            out += fmt::format("- {} key {} seq {} by {} at {} us, after seq {}\n",
                               v.fault == OrderFault::OutOfOrder    ? "out of order"
                               : v.fault == OrderFault::Interleaved ? "interleaved"
                                                                    : "before its predecessor",
                               v.key,
                               v.seq,
                               v.member,
                               v.time_us,
                               v.after_seq);
        }
        out += "\n";
    }
    if (r.stalls.size() > 1) {
        out += "Longest stalls per key:";
        for (const auto& s : r.stalls) {
            out += fmt::format(" {} {} (seq {});", s.key, ms(s.wait_us), s.seq);
        }
        out += "\n\n";
    }
    return out;
}

}  // namespace rmq_chaos
