#pragma once

// The driver's side of a short chaos run (docs/chaos.md#the-short-variant), shared by chaos_test.cpp
// (Orderly) and chaos_pop_test.cpp (POP): the chaos programs of tests/chaos/ spawned against the cluster of
// tools/broker-test.sh, members by slot, the fault log, the drain and the final stop.

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "chaos_check.hpp"
#include "cluster.hpp"
#include "logs.hpp"
#include "process.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

namespace rmq_rc_chaos {

inline std::int64_t now_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// Members by slot (`m<slot>.<incarnation>`), the fault log (faults.tsv) in a directory of its own.
struct Run {
    std::filesystem::path dir;
    std::string topic;
    std::string group;
    std::vector<std::string> member_args;  // POLICY first, then what follows DIR (rmq_chaos_member)
    std::ofstream faults;
    std::mutex faults_mutex;  // the broker restart's thread writes too
    std::map<int, std::pair<std::string, pid_t>> members;
    std::map<int, int> incarnation;

    /// A new topic of `queues` queues per broker and group; logs under the temp directory.
    Run(const std::string& prefix, std::vector<std::string> args, int queues)
        : dir(std::filesystem::temp_directory_path() / rmq_rc::unique(prefix))
        , topic(dir.filename().string())
        , group(rmq_rc::unique(prefix + "g"))
        , member_args(std::move(args)) {
        std::filesystem::create_directories(dir / "members");
        faults.open(dir / "faults.tsv");
        rmq_rc::create_topic(topic, queues);
    }

    void fault(std::string_view kind, const std::string& target) {
        const std::lock_guard lock(faults_mutex);
        faults << now_us() << '\t' << kind << '\t' << target << '\n' << std::flush;
    }

    void start(int slot) {
        const std::string name = fmt::format("m{}.{}", slot, ++incarnation[slot]);
        fault("start", name);
        std::vector<std::string> cmd{RMQ_CHAOS_MEMBER,
                                     member_args.at(0),
                                     rmq_rc::namesrv(),
                                     topic,
                                     group,
                                     name,
                                     (dir / "members").string()};
        cmd.insert(cmd.end(), member_args.begin() + 1, member_args.end());
        members[slot] = {name, rmq_rc::spawn(cmd, (dir / "members" / (name + ".err")).string())};
    }

    void signal(int slot, std::string_view kind, int sig) {
        fault(kind, members.at(slot).first);
        ::kill(members.at(slot).second, sig);
    }

    /// The keyed producer: `keys` keys over 4 queues per broker, `rate` msg/s for `seconds`.
    pid_t produce(int keys, int rate, int seconds) const {
        return rmq_rc::spawn({RMQ_CHAOS_PRODUCER,
                              rmq_rc::namesrv(),
                              topic,
                              "broker-a,broker-b",
                              "4",
                              std::to_string(keys),
                              std::to_string(rate),
                              std::to_string(seconds),
                              dir.string()},
                             (dir / "producer.err").string());
    }

    /// kill -9 of `broker` now; the returned thread starts it again `outage` later (start-broker itself
    /// takes 15-25 s, then broker_up is logged: the POP rules' end of the outage). Join it.
    std::thread restart_broker(const std::string& broker, std::chrono::seconds outage) {
        fault("broker_kill", broker);
        rmq_rc::rocketmq_sh("kill-broker " + broker);
        return std::thread([this, broker, outage] {
            std::this_thread::sleep_for(outage);
            fault("broker_start", broker);
            rmq_rc::rocketmq_sh("start-broker " + broker);
            fault("broker_up", broker);
        });
    }

    /// Handled every message of sent.tsv?
    bool drained() const {
        const auto in = rmq_chaos::read_run(dir);
        std::set<std::string> handled;
        for (const auto& h : in.handled) {
            handled.insert(h.msg_id);
        }
        return std::all_of(in.sent.begin(), in.sent.end(), [&](const rmq_chaos::Sent& s) {
            return handled.contains(s.msg_id);
        });
    }

    /// SIGTERM to every member (each writes its .shutdown), waits for them, closes the fault log.
    void stop_members() {
        for (auto& [slot, member] : members) {
            ::kill(member.second, SIGTERM);
        }
        for (auto& [slot, member] : members) {
            waitpid(member.second, nullptr, 0);
        }
        faults.close();
    }
};

}  // namespace rmq_rc_chaos
