#pragma once

/// @file sim/options.hpp
/// What a simulation run (rmq/sim/simulation.hpp) is given: its faults and shape, and how the messages it
/// sends are told apart (key and per-key sequence).

#include <cstdint>
#include <string>

#include <rmq/message.hpp>

namespace rmq::sim {

/// How often each fault strikes while faults are on (probabilities per request or answer), and how many
/// scenario faults a run has.
struct Faults {
    double pull_drop = 0.02;        ///< a pull's answer is lost: the consumer sees a failure at its timeout
    double pull_delay = 0.2;        ///< a pull's answer comes late (later answers overtake it)
    double offset_drop = 0.1;       ///< UPDATE_CONSUMER_OFFSET is lost (the caller sees a timeout)
    double offset_delay = 0.1;      ///< UPDATE_CONSUMER_OFFSET is applied late, after newer ones
    double offset_duplicate = 0.1;  ///< UPDATE_CONSUMER_OFFSET is applied now and again later
    double lock_answer_drop = 0.1;  ///< LOCK_BATCH_MQ is applied, its answer lost
    double heartbeat_drop = 0.1;    ///< HEART_BEAT is lost
    double send_duplicate = 0.05;   ///< a message is stored twice (a producer retry)
    std::int64_t max_delay_millis = 5000;      ///< late answers and requests: up to this late
    std::int64_t pull_timeout_millis = 30000;  ///< when a lost pull answer fails
    int crashes = 1;   ///< members that vanish (each replaced by a new member soon after)
    int pauses = 2;    ///< members that stop for pause_min_millis..pause_max_millis
    int restarts = 1;  ///< broker restarts
    std::int64_t pause_min_millis = 65000;   ///< longer than the broker's lock expiry (60 s)
    std::int64_t pause_max_millis = 150000;  ///< up to past the broker's channel expiry (120 s)
};

/// One run's shape. Every random choice derives from `seed`.
struct Options {
    std::uint64_t seed = 1;
    int members = 3;
    int queues = 8;
    int keys = 16;
    int messages = 300;
    std::int64_t send_millis = 60000;     ///< messages are sent over this much virtual time
    std::int64_t fault_millis = 120000;   ///< faults strike in [0, fault_millis)
    std::int64_t settle_millis = 600000;  ///< then, fault-free, the run ends once every message was handled
    Faults faults;
    std::string topic = "SimTopic";
    std::string group = "sim_group";
};

/// The key (0-based) of a message the simulation sent (its KEYS property is "k<key>"); -1 for others.
[[nodiscard]] inline int key_of(const MessageExt& msg) {
    const auto keys = msg.keys();
    if (keys.size() < 2 || keys.front() != 'k') {
        return -1;
    }
    return std::stoi(std::string(keys.substr(1)));
}

/// The per-key sequence number of a message the simulation sent; -1 for others.
[[nodiscard]] inline int seq_of(const MessageExt& msg) {
    const auto seq = msg.property("SIM_SEQ");
    return seq ? std::stoi(*seq) : -1;
}

}  // namespace rmq::sim
