#!/usr/bin/env python3
"""The chaos suite (docs/chaos.md): a keyed producer and N consumer members of one group on a real Apache RocketMQ
cluster (tools/rocketmq.sh), a seeded fault schedule (kill -9 / SIGTERM of a member every 5-10 s and its restart,
a SIGSTOP longer than the broker's lock expiry then SIGCONT, kill -9 of a broker and its restart, a new member
started while that broker is down), a drain, and the checker (rmq_chaos_check over tests/support/chaos_check.hpp,
with the longest double ownership of a queue from the members' .owns files) per policy. Writes the results file.

  tests/chaos/run.py                                   all three policies, 240 s each, results/latest.md
  tests/chaos/run.py --policies orderly --duration 90 --out /tmp/x.md
  tests/chaos/run.py --policies pop --duration 90 --out /tmp/pop.md   POP mode (rmq::Concurrently members popping)

Exit status 0 when every policy met the goal (0 lost, 0 unexplained duplicates, 0 order violations for the
ordered policies). Ports: RMQ_NAMESRV_PORT (19876) and RMQ_BROKER_PORT (20911) unless set.
"""

import argparse
import json
import os
import platform
import random
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROCKETMQ_SH = ROOT / "tools" / "rocketmq.sh"
ORDERED = {"concurrently": False, "orderly": True, "key_orderly": True, "pop": False}
TITLES = {"concurrently": "Concurrently", "orderly": "Orderly", "key_orderly": "KeyOrderly", "pop": "POP"}


def now_us():
    return time.time_ns() // 1000


def log(msg):
    print(f"chaos: {time.strftime('%H:%M:%S')} {msg}", file=sys.stderr, flush=True)


CHILDREN = []  # every member and producer started, killed when the driver is interrupted


def spawn(cmd, **kw):
    p = subprocess.Popen(cmd, **kw)
    CHILDREN.append(p)
    return p


def on_signal(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def nice(cmd):
    return ["nice", "-n", "10", *cmd]


class Cluster:
    def __init__(self, directory, env):
        self.dir = directory
        self.env = env
        self.namesrv = None

    def sh(self, *args, check=True):
        cmd = [str(ROCKETMQ_SH), *args, "--dir", str(self.dir)]
        r = subprocess.run(cmd, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
        return r

    def start(self):
        if self.dir.exists() and any(self.dir.iterdir()):
            subprocess.run([str(ROCKETMQ_SH), "stop", "--fast", "--dir", str(self.dir)], env=self.env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.dir.mkdir(parents=True, exist_ok=True)
        r = subprocess.run([str(ROCKETMQ_SH), "start", "--dir", str(self.dir)], env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"cluster start failed:\n{r.stderr[-3000:]}")
        for line in (self.dir / "cluster.env").read_text().splitlines():
            if line.startswith("RMQ_NAMESRV="):
                self.namesrv = line.split("=", 1)[1].strip().strip("'\"")
        if not self.namesrv:
            raise RuntimeError("cluster.env names no RMQ_NAMESRV")

    def stop(self):
        self.sh("stop", "--fast", check=False)


class Faults:
    """The fault log (faults.tsv): time_us, kind, target; written before the signal is sent."""

    def __init__(self, path):
        self.file = open(path, "w")
        self.lock = threading.Lock()
        self.counts = {}

    def record(self, kind, target):
        with self.lock:
            self.file.write(f"{now_us()}\t{kind}\t{target}\n")
            self.file.flush()
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def close(self):
        self.file.close()


class Members:
    def __init__(self, args, cluster, policy, topic, group, run_dir, faults, rng):
        self.rng = rng
        self.args, self.cluster, self.policy = args, cluster, policy
        self.topic, self.group, self.dir, self.faults = topic, group, run_dir / "members", faults
        self.dir.mkdir(parents=True, exist_ok=True)
        self.procs = {}  # slot -> (name, Popen)
        self.incarnation = {}
        self.paused = set()
        self.exiting = []

    def start(self, slot):
        n = self.incarnation.get(slot, 0) + 1
        self.incarnation[slot] = n
        # The name is the instance name, and AllocateAveragely splits queues by the sorted client ids: a random
        # prefix re-sorts the group at every restart, so queues move around (also away from a paused member)
        # instead of each slot keeping its place.
        name = f"{self.rng.randrange(100, 1000)}m{slot}.{n}"
        err = open(self.dir / f"{name}.err", "w")
        self.faults.record("start", name)
        cmd = [str(self.args.build_dir / "rmq_chaos_member"), self.policy, self.cluster.namesrv, self.topic,
               self.group, name, str(self.dir)]
        if self.policy == "pop":
            cmd.append(str(self.args.pop_invisible_ms))
        p = spawn(nice(cmd), stdout=err, stderr=err)
        self.procs[slot] = (name, p)

    def signal(self, slot, kind):
        name, p = self.procs[slot]
        sig = {"kill": signal.SIGKILL, "term": signal.SIGTERM, "pause": signal.SIGSTOP,
               "resume": signal.SIGCONT}[kind]
        self.faults.record(kind, name)
        p.send_signal(sig)
        if kind == "pause":
            self.paused.add(slot)
        elif kind == "resume":
            self.paused.discard(slot)
        elif kind in ("kill", "term"):
            self.exiting.append((name, p))  # a SIGTERM'd member shuts down while the schedule goes on
            del self.procs[slot]

    def log_size(self, slot):
        p = self.dir / f"{self.procs[slot][0]}.log"
        return p.stat().st_size if p.exists() else 0

    def running(self):
        return [s for s in self.procs if s not in self.paused]

    def stop_all(self):
        for slot in list(self.paused):
            self.procs[slot][1].send_signal(signal.SIGCONT)
        self.paused.clear()
        for name, p in self.procs.values():
            p.send_signal(signal.SIGTERM)
        for name, p in [*self.procs.values(), *self.exiting]:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                log(f"{name} did not exit 60 s after SIGTERM: kill -9")
                p.kill()
                p.wait()
        self.procs.clear()


def handled_ids(members_dir):
    ids = set()
    for f in members_dir.glob("*.log"):
        with open(f) as fh:
            for line in fh:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 8:
                    ids.add(parts[3])
    return ids


def sent_ids(run_dir):
    ids = set()
    p = run_dir / "sent.tsv"
    if p.exists():
        with open(p) as fh:
            for line in fh:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 7:
                    ids.add(parts[2])
    return ids


def run_policy(args, cluster, policy, rng, stamp):
    run_dir = args.work_dir / stamp / policy
    run_dir.mkdir(parents=True, exist_ok=True)
    topic = f"Chaos_{policy}_{stamp}"
    group = f"chaos_{policy}_{stamp}"
    cluster.sh("create-topic", topic, str(args.queues))
    faults = Faults(run_dir / "faults.tsv")
    members = Members(args, cluster, policy, topic, group, run_dir, faults, rng)
    t0 = time.monotonic()
    for slot in range(1, args.members + 1):
        members.start(slot)
    producer = spawn(
        nice([str(args.build_dir / "rmq_chaos_producer"), cluster.namesrv, topic, "broker-a,broker-b",
              str(args.queues), str(args.keys), str(args.rate), str(args.duration), str(run_dir)]),
        stdout=subprocess.DEVNULL, stderr=open(run_dir / "producer.err", "w"))

    # the schedule: member faults every 5-10 s from the warm-up on; one pause; one broker restart
    pause_at = args.duration * 0.2 if args.pause > 0 else None
    resume_at = None
    paused_slot = None
    broker_at = args.duration * 0.55 if args.broker_restart else None
    broker_thread = None
    next_member_fault = args.warmup + rng.uniform(5, 10)
    restarts = []  # (time, slot)
    newcomer_at = None  # issue 30 §1: a member that starts while a broker is down

    def broker_restart(name):
        faults.record("broker_kill", name)
        cluster.sh("kill-broker", name)
        time.sleep(args.outage)
        faults.record("broker_start", name)
        cluster.sh("start-broker", name)
        faults.record("broker_up", name)  # serves again: the checker's POP rules end the outage here
        log(f"{name} started again")

    while True:
        t = time.monotonic() - t0
        if t >= args.duration:
            break
        for item in [r for r in restarts if r[0] <= t]:
            restarts.remove(item)
            members.start(item[1])
        if pause_at is not None and t >= pause_at and members.running():
            # the member with the longest log: one that has held queues for a while
            paused_slot = max(sorted(members.running()), key=members.log_size)
            log(f"pause {members.procs[paused_slot][0]} for {args.pause} s")
            members.signal(paused_slot, "pause")
            resume_at, pause_at = t + args.pause, None
        if resume_at is not None and t >= resume_at:
            members.signal(paused_slot, "resume")
            resume_at = None
        if broker_at is not None and t >= broker_at:
            name = rng.choice(["broker-a", "broker-b"])
            log(f"kill -9 {name}, start it again after {args.outage} s")
            broker_thread = threading.Thread(target=broker_restart, args=(name,))
            broker_thread.start()
            broker_at = None
            if args.newcomer:
                newcomer_at = t + max(1.0, args.outage * 0.4)
        if newcomer_at is not None and t >= newcomer_at:
            log(f"a new member starts while the broker is down")
            members.start(args.members + 1)
            newcomer_at = None
        if t >= next_member_fault:
            candidates = sorted(members.running())
            if len(candidates) > 1:  # keep one member consuming
                slot = rng.choice(candidates)
                kind = "term" if rng.random() < args.term_share else "kill"
                log(f"{kind} {members.procs[slot][0]}")
                members.signal(slot, kind)
                restarts.append((time.monotonic() - t0 + rng.uniform(1, 3), slot))
            next_member_fault = time.monotonic() - t0 + rng.uniform(5, 10)
        time.sleep(0.1)
    if resume_at is not None:
        members.signal(paused_slot, "resume")
    for _, slot in restarts:
        members.start(slot)
    producer.wait()
    if broker_thread is not None:
        broker_thread.join()
    log(f"{policy}: producer done, draining")
    sent = sent_ids(run_dir)
    deadline = time.monotonic() + args.drain
    missing = len(sent)
    while time.monotonic() < deadline:
        missing = len(sent - handled_ids(run_dir / "members"))
        if missing == 0:
            break
        time.sleep(2)
    drain_s = args.drain - max(0, deadline - time.monotonic())
    log(f"{policy}: drained in {drain_s:.0f} s ({missing} not handled), stopping members")
    time.sleep(3)  # late redeliveries still count
    members.stop_all()
    faults.close()
    check = [str(args.build_dir / "rmq_chaos_check"), str(run_dir), TITLES[policy], "1" if ORDERED[policy] else "0",
             str(args.window)]
    if policy == "pop":
        check.append(str(args.pop_invisible_ms))  # the checker's POP rules
    r = subprocess.run(check,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode == 2:
        raise RuntimeError(f"rmq_chaos_check failed: {r.stderr}")
    report = json.loads((run_dir / "report.json").read_text())
    report["drain_s"] = round(drain_s)
    report["pause"] = pause_evidence_pop(run_dir, args) if policy == "pop" else pause_evidence(run_dir)
    return r.stdout + f"Pause: {report['pause']}.\n\n", report


def first_pause(run_dir):
    """(member, pause time, resume time) of the run's first pause, in µs; None without one."""
    faults = [line.rstrip("\n").split("\t") for line in open(run_dir / "faults.tsv")]
    pauses = [f for f in faults if f[1] == "pause"]
    resumes = [f for f in faults if f[1] == "resume"]
    if not pauses or not resumes:
        return None
    return pauses[0][2], int(pauses[0][0]), int(resumes[0][0])


def pause_evidence(run_dir):
    """Whether the pause did what it is for: the queues the paused member consumed in the 10 s before it, which
    of them another member handled during the pause, and which the paused member handled again after it."""
    pause = first_pause(run_dir)
    if pause is None:
        return "no pause"
    member, t_pause, t_resume = pause
    records = []
    for f in (run_dir / "members").glob("*.log"):
        with open(f) as fh:
            for line in fh:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 8:
                    records.append((int(parts[7]), parts[0], f"{parts[4]}:{parts[5]}"))
    held = {q for t, m, q in records if m == member and t_pause - 10_000_000 < t < t_pause}
    taken = {q for t, m, q in records if q in held and m != member and t_pause < t < t_resume}
    again = {q for t, m, q in records if q in taken and m == member and t > t_resume}
    return (f"{member} paused {(t_resume - t_pause) / 1e6:.0f} s holding {len(held)} queues "
            f"({', '.join(sorted(held)) or '-'}); {len(taken)} of them consumed by another member during the "
            f"pause; {len(again)} of those consumed by {member} again after SIGCONT")


def pause_evidence_pop(run_dir, args):
    """For POP, where every member pops every queue: how long the pause was against the invisible time, how many
    messages the paused member handled in the 2 s before it, and whether it handled messages again after SIGCONT
    (its pop loops came back; what it held when stopped had timed out and must have been dropped)."""
    pause = first_pause(run_dir)
    if pause is None:
        return "no pause"
    member, t_pause, t_resume = pause
    times = []
    log_file = run_dir / "members" / f"{member}.log"
    if log_file.exists():
        times = [int(line.split("\t")[7]) for line in open(log_file) if line.count("\t") == 7]
    before = sum(1 for t in times if t_pause - 2_000_000 < t <= t_pause)
    after = sum(1 for t in times if t > t_resume)
    return (f"{member} paused {(t_resume - t_pause) / 1e6:.0f} s (invisible time {args.pop_invisible_ms / 1000:.0f} s); "
            f"it handled {before} messages in the 2 s before the pause and {after} after SIGCONT")


def double_ownership(rep):
    d = rep.get("double_ownership")
    if d is None:
        return "not measured"
    return f"{d['longest_ms'] / 1000:.1f} s ({d['over_2s']} spans over 2 s)"


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policies", default="concurrently,orderly,key_orderly")
    ap.add_argument("--duration", type=int, default=240, help="seconds of producing and faults per policy")
    ap.add_argument("--members", type=int, default=4)
    ap.add_argument("--rate", type=int, default=100, help="messages per second")
    ap.add_argument("--keys", type=int, default=200)
    ap.add_argument("--queues", type=int, default=4, help="per broker (2 brokers)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--warmup", type=float, default=10)
    ap.add_argument("--pause", type=float, default=60, help="SIGSTOP length, s (0: no pause)")
    ap.add_argument("--lock-max-live-ms", type=int, default=35000,
                    help="the brokers' rocketmq.broker.rebalance.lockMaxLiveTime")
    ap.add_argument("--pop-invisible-ms", type=int, default=20000,
                    help="pop members' pop_invisible_time (the pause must be longer)")
    ap.add_argument("--term-share", type=float, default=0.25, help="share of member faults that are SIGTERM")
    ap.add_argument("--no-broker-restart", dest="broker_restart", action="store_false")
    ap.add_argument("--outage", type=float, default=5, help="seconds between a broker's kill and its start")
    ap.add_argument("--no-newcomer", dest="newcomer", action="store_false",
                    help="no new member started while the broker is down")
    ap.add_argument("--drain", type=int, default=180, help="max seconds to wait for every message after producing")
    ap.add_argument("--window", type=int, default=60, help="checker: seconds a fault explains repeats")
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "chaos" / "results" / "latest.md")
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build" / "chaos")
    ap.add_argument("--work-dir", type=Path, default=None, help="logs of the runs (default BUILD_DIR/runs)")
    ap.add_argument("--cluster-dir", type=Path, default=None, help="default BUILD_DIR/cluster")
    ap.add_argument("--no-build", dest="build", action="store_false")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    args.seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    unknown = set(args.policies.split(",")) - set(ORDERED)
    if unknown:
        ap.error(f"unknown policies {', '.join(sorted(unknown))} (of {', '.join(ORDERED)})")
    if "pop" in args.policies.split(",") and 0 < args.pause * 1000 <= args.pop_invisible_ms:
        ap.error("--pause must be longer than --pop-invisible-ms: a pop pause tests redelivery past it")
    args.work_dir = args.work_dir or args.build_dir / "runs"
    cluster_dir = args.cluster_dir or args.build_dir / "cluster"
    command = " ".join(shlex.quote(a) for a in ["tests/chaos/run.py", *sys.argv[1:]])

    if args.build:
        log("building the chaos programs (tests/realcluster project) ...")
        subprocess.run(nice(["cmake", "-S", str(ROOT / "tests" / "realcluster"), "-B", str(args.build_dir),
                             "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                             "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]), check=True, stdout=subprocess.DEVNULL)
        subprocess.run(nice(["cmake", "--build", str(args.build_dir), "-j2", "--target", "rmq_chaos_member",
                             "rmq_chaos_producer", "rmq_chaos_check"]), check=True, stdout=subprocess.DEVNULL)

    env = dict(os.environ)
    env.setdefault("RMQ_NAMESRV_PORT", "19876")
    env.setdefault("RMQ_BROKER_PORT", "20911")
    env["RMQ_BROKER_JVM"] = (env.get("RMQ_BROKER_JVM", "-Xms256m -Xmx512m -XX:MaxDirectMemorySize=512m") +
                             f" -Drocketmq.broker.rebalance.lockMaxLiveTime={args.lock_max_live_ms}")
    env.pop("RMQ_CLUSTER_DIR", None)
    cluster = Cluster(cluster_dir, env)
    log(f"starting the cluster in {cluster_dir} (seed {args.seed})")
    t_start = time.monotonic()
    cluster.start()
    rng = random.Random(args.seed)
    stamp = time.strftime("%Y%m%d%H%M%S")
    sections, reports = [], []
    try:
        for policy in args.policies.split(","):
            log(f"{policy}: {args.duration} s with faults")
            md, report = run_policy(args, cluster, policy, rng, stamp)
            sections.append(md)
            reports.append(report)
            log(f"{policy}: {'ok' if report['ok'] else 'FAILED'}")
    finally:
        for p in CHILDREN:
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
                p.wait()
        cluster.stop()
    total_s = time.monotonic() - t_start

    header = [
        "# Chaos suite: latest results",
        "",
        "Made by `tests/chaos/run.py` ([docs/chaos.md](../../../docs/chaos.md)); do not edit by hand.",
        "",
        f"- command: `{command}`",
        f"- seed: {args.seed}",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"- machine: {machine()}, load average before the run {os.getloadavg()[0]:.1f}",
        f"- cluster: Apache RocketMQ {env.get('RMQ_VERSION', '5.3.3')}, NameServer + broker-a + broker-b "
        f"(tools/rocketmq.sh), rocketmq.broker.rebalance.lockMaxLiveTime={args.lock_max_live_ms} ms",
        f"- per policy: {args.duration} s of producing at {args.rate} msg/s over {args.keys} keys, "
        f"topic of {args.queues} queues per broker, {args.members} members (AllocateAveragely, "
        f"RemoteOffsetStore"
        + (f"; pop: in POP mode, pop_invisible_time {args.pop_invisible_ms} ms" if "pop" in args.policies else "")
        + f"); faults: kill -9 or SIGTERM ({args.term_share:.0%}) of a member every 5-10 s after "
        f"{args.warmup:.0f} s, restarted 1-3 s later"
        + (f"; one SIGSTOP of {args.pause:.0f} s at 20 %" if args.pause > 0 else "")
        + (f"; one broker kill -9 at 55 %, started again after {args.outage:.0f} s" if args.broker_restart else "")
        + ("; a new member started while that broker is down" if args.broker_restart and args.newcomer else "")
        + f"; duplicates explained within {args.window} s",
        f"- total wall time: {total_s:.0f} s",
        "",
        "| policy | sent | lost | duplicates | kill / term / pause / broker / handover / **unexplained** "
        "| order violations | rewinds | longest stall | longest double ownership | drain | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for rep in reports:
        c = rep["duplicates_by_cause"]
        header.append(
            f"| {rep['title']} | {rep['sent']} | {rep['lost']} | {rep['duplicates']} | "
            f"{c['kill of the holder']} / {c['SIGTERM of the holder']} / {c['pause of the holder']} / "
            f"{c['broker restart']} / {c['handover']} / **{c['unexplained']}** | "
            f"{rep['out_of_order'] + rep['interleaved']}{'' if rep['ordered'] else ' (not promised)'} | "
            f"{rep['rewinds']} | {rep['longest_stall_ms'] / 1000:.1f} s | {double_ownership(rep)} | {rep['drain_s']} s | "
            f"{'ok' if rep['ok'] else 'FAILED'} |")
    text = "\n".join(header) + "\n\n" + "\n".join(sections)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    args.out.with_suffix(".json").write_text(json.dumps(
        {"command": command, "seed": args.seed, "machine": machine(), "policies": reports}, indent=1) + "\n")
    log(f"wrote {args.out}")
    print(text)
    return 0 if all(r["ok"] for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
