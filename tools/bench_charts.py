#!/usr/bin/env python3
"""Charts of a benchmark run: reads DIR/latest.json (written by tools/bench.sh) and writes PNGs to DIR/charts/.

    python3 tools/bench_charts.py [DIR]        (default bench/results)

It runs no benchmark: it only draws what DIR/latest.json holds, so the committed charts can be redrawn from the
committed figures at any time.

  throughput.png  msg/s per pipeline: rmq, the Java client, the limit (raw pull loop)
  cpu.png         CPU seconds per million messages, same pipelines
  handover.png    time until a queue's new owner consumes after a member joins or leaves (ms, log scale)
  memory.png      peak resident memory: per pipeline on the real broker, and draining a backlog
  steady.png      the real-broker runs without their start-up: steady-state msg/s and CPU per million
  work.png        real broker, listeners that do work (sleep 1 ms per call; hash each body 100 times): msg/s, CPU

Every figure comes from the rows of latest.json (the medians latest.md shows), so the charts always match the
table; a row that was not run is left out of its chart. Needs matplotlib (Debian: python3-matplotlib); exits 3
without it so that tools/bench.sh can say so.
"""

import json
import os
import re
import sys

try:
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt
except ImportError:
    sys.stderr.write("bench_charts.py: matplotlib is missing (Debian: apt-get install python3-matplotlib)\n")
    sys.exit(3)

SERIES = (("rmq", "rmq", "#1f77b4"), ("java", "Java client", "#ff7f0e"), ("limit", "limit (raw pull loop)", "#7f7f7f"))


def number(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def split_figure(figure):
    """'Real broker (200,000 msgs of 128 B, 8 queues) Orderly: throughput (msg/s)' -> (pipeline, metric)."""
    head, _, metric = figure.rpartition(": ")
    return head, metric


def short_pipeline(head):
    """A bar label: 'In-process Concurrently, batch 1' -> 'in-process\nConcurrently b1'."""
    m = re.match(r"Real broker \((?:[\d,]+) msgs of ([^,]+), \d+ queues\) (.*)", head)
    where, what = ("real broker " + m.group(1), m.group(2)) if m else ("in-process", head.replace("In-process ", ""))
    what = what.replace(", batch ", " b")
    return f"{where}\n{what}"


def rows_with(rows, metric_pattern):
    out = []
    for r in rows:
        head, metric = split_figure(r["figure"])
        if re.search(metric_pattern, metric) and not head.startswith("Real broker raw") and "listener" not in head:
            out.append((head, r))
    return out


def value_text(y):
    return f"{y / 1000:.0f}k" if y >= 10000 else (f"{y:.1f}" if y < 100 else f"{y:.0f}")


def present_series(groups):
    return [s for s in SERIES if any(number(vals.get(s[0])) is not None for _, vals in groups)]


def grouped_bars(ax, groups, xlabel, title, log=False):
    """groups: [(label, {series_key: value})]; one horizontal bar per series that has a value. Horizontal, so
    that every pipeline's label has a line of its own (vertical bars' x labels ran into each other)."""
    series = present_series(groups)
    height = 0.8 / max(1, len(series))
    for i, (key, name, colour) in enumerate(series):
        ys = [g + (i - (len(series) - 1) / 2) * height for g, (_, vals) in enumerate(groups)
              if number(vals.get(key)) is not None]
        xs = [vals[key] for _, vals in groups if number(vals.get(key)) is not None]
        bars = ax.barh(ys, xs, height, label=name, color=colour)
        for b, x in zip(bars, xs):
            ax.annotate(value_text(x), (x, b.get_y() + b.get_height() / 2), xytext=(3, 0),
                        textcoords="offset points", ha="left", va="center", fontsize=7)
    ax.set_yticks(range(len(groups)))
    ax.set_yticklabels([g.replace("\n", " · ") for g, _ in groups], fontsize=8)
    ax.invert_yaxis()  # the first group on top, as in the table
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10, loc="left")
    if log:
        ax.set_xscale("log")
    ax.margins(x=0.12)  # room for the value labels right of the longest bar
    ax.grid(axis="x", alpha=0.3)
    # Above the plot, right of the title: inside, it covered the longest bars.
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=len(series), frameon=False)


def per_pipeline(rows, metric_pattern):
    groups = []
    for head, r in rows_with(rows, metric_pattern):
        groups.append((short_pipeline(head), {"rmq": r.get("rmq"), "java": r.get("java"), "limit": r.get("limit")}))
    return groups


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(path)


def subtitle(d):
    load = (f"load before the run {d['load_before']}" if "load_before" in d
            else f"load at the end {d.get('load_average', '?')}")
    return f"{d.get('generated', '?')}, commit {d.get('commit', '?')}, {d.get('cpus', '?')} cores, {load}"


def bar_chart(d, out, name, title, panels, log=True, width=11):
    """One subplot per (groups, x label) of `panels` that has groups, each as tall as its bars need; nothing
    when none has."""
    panels = [(groups, xlabel) for groups, xlabel in panels if groups]
    if not panels:
        return
    heights = [1.3 + 0.22 * len(groups) * max(1, len(present_series(groups))) for groups, _ in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, sum(heights) + 0.6), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, (groups, xlabel) in zip(axes[:, 0], panels):
        grouped_bars(ax, groups, xlabel, title, log=log)
    fig.suptitle(subtitle(d), fontsize=8, x=0.01, ha="left", color="#555555")
    save(fig, os.path.join(out, name))


def matching(d, pattern, label_of=short_pipeline):
    """Groups of the rows whose figure matches `pattern`, labelled by their pipeline."""
    return [(label_of(split_figure(r["figure"])[0]), {k: r.get(k) for k in ("rmq", "java", "limit")})
            for r in d["rows"] if re.search(pattern, r["figure"])]


def handover_groups(d):
    groups = []
    for r in d["rows"]:
        m = re.match(r"(In-process|Real broker) handover after a member (joins|leaves): (\w+), (.*) \(ms", r["figure"])
        if not m:
            continue
        where = "in-process" if m.group(1) == "In-process" else "real broker"
        policy = "conc." if m.group(3) == "concurrently" else m.group(3)
        interval = re.sub(r"rebalance_interval (\d+)000 ms", r"rebalance \1 s", m.group(4))
        interval = interval.replace("default intervals", "defaults")
        groups.append((f"{where}\n{policy} {m.group(2)}\n{interval}", {"rmq": r.get("rmq"), "java": r.get("java")}))
    return groups


def memory_groups(d):
    groups = per_pipeline(d["rows"], r"^peak RSS of the process \(MB\)$")
    for r in d["rows"]:
        if "backlog" in r["figure"] and "RSS" in r["figure"]:
            head, _ = split_figure(r["figure"])
            label = "real broker\nbacklog drain" if head.startswith("Real broker") else "in-process\nbacklog (above broker)"
            groups.append((label, {"rmq": r.get("rmq"), "java": r.get("java")}))
    return groups


def work_label(head):
    """'Real broker (100,000 msgs of 128 B, 400 keys, 8 queues) Orderly, 64 threads, listener sleeps 1 ms per call'"""
    policy = re.sub(r".*\) ", "", head).split(",")[0]
    work = "sleep 1 ms / call" if "sleeps" in head else "hash body 100x"
    return f"{policy}\n{work}"


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else "bench/results"
    d = json.load(open(os.path.join(results, "latest.json")))
    out = os.path.join(results, "charts")
    os.makedirs(out, exist_ok=True)
    bar_chart(d, out, "throughput.png", "Throughput (medians)",
              [(per_pipeline(d["rows"], r"^throughput \(msg/s\)$"), "messages per second")])
    bar_chart(d, out, "cpu.png", "CPU per message (lower is better)",
              [(per_pipeline(d["rows"], r"^CPU s per million msgs$"), "CPU seconds per million messages")], log=False)
    bar_chart(d, out, "handover.png", "Handover latency (lower is better)",
              [(handover_groups(d), "ms until the new owner consumes")])
    bar_chart(d, out, "memory.png", "Memory (lower is better)", [(memory_groups(d), "peak resident memory (MB)")])
    bar_chart(d, out, "steady.png", "Real broker, steady state (after the first fifth of each run)",
              [(matching(d, r": steady-state throughput \(msg/s\)$"), "messages per second"),
               (matching(d, r": steady-state CPU s per million msgs$"), "CPU s per million messages")],
              log=False)
    bar_chart(d, out, "work.png", "Real broker, a listener that does work (64 threads)",
              [(matching(d, r"listener.*: throughput \(msg/s\)$", work_label), "messages per second"),
               (matching(d, r"listener.*: CPU s per million msgs$", work_label), "CPU s per million messages")],
              log=False)

if __name__ == "__main__":
    main()
