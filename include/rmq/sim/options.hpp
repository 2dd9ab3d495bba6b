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
    double pop_drop = 0.02;  ///< POP runs: a POP_MESSAGE's answer is lost (popped at the broker, never seen)
    double ack_drop = 0.05;  ///< POP runs: an ACK_MESSAGE is lost (the message comes back)
    std::int64_t max_delay_millis = 5000;      ///< late answers and requests: up to this late
    std::int64_t pull_timeout_millis = 30000;  ///< when a lost pull answer fails
    int crashes = 1;   ///< members that vanish (each replaced by a new member soon after)
    int pauses = 2;    ///< members that stop for pause_min_millis..pause_max_millis
    int restarts = 1;  ///< broker restarts
    /// Broker outages (runs with two or more brokers): a broker is down for outage_min_millis..
    /// outage_max_millis (requests to it fail, the NameServer leaves it out of routes), then comes back
    /// having lost locks, memberships and the offsets after its last flush.
    int outages = 0;
    std::int64_t outage_min_millis = 5000;
    std::int64_t outage_max_millis = 15000;
    /// A new member starts during each outage (issue 30 §1's member that never heard of the down broker).
    bool member_starts_during_outage = true;
    std::int64_t pause_min_millis = 65000;   ///< longer than the broker's lock expiry (60 s)
    std::int64_t pause_max_millis = 150000;  ///< up to past the broker's channel expiry (120 s)
};

/// How a member's transport learns of brokers (runs with two or more brokers), modelling rmq::
/// RemotingTransport: the knobs exist so that a test can show what each part of it is for.
struct RouteModel {
    /// The periodic route poll (RemotingConfig::poll_name_server_interval): every broker of the route read
    /// is heartbeated; a broker seen for the first time at once.
    std::int64_t poll_millis = 30000;
    /// The route check (RemotingConfig::route_check_interval_millis); 0: none, as Java and rmq before it.
    std::int64_t check_millis = 1000;
    /// A broker this member was connected to going down or coming back makes it re-read the routes this
    /// many times, one second apart (the route watch after a connection event).
    int watch_reads = 5;
    /// The group's member list is the union of every known broker's answer (rmq); false: one broker's,
    /// picked at random (Java).
    bool member_list_union = true;
};

/// One run's shape. Every random choice derives from `seed`.
struct Options {
    std::uint64_t seed = 1;
    int members = 3;
    /// Brokers (named broker-a, broker-b, ...), each with `queues` queues of the topic. With one broker the
    /// route never changes and RouteModel plays no part.
    int brokers = 1;
    RouteModel routes;
    int queues = 8;
    int keys = 16;
    int messages = 300;
    std::int64_t send_millis = 60000;     ///< messages are sent over this much virtual time
    std::int64_t fault_millis = 120000;   ///< faults strike in [0, fault_millis)
    std::int64_t settle_millis = 600000;  ///< then, fault-free, the run ends once every message was handled
    Faults faults;
    /// The members consume by POP (ConsumerConfig::message_request_mode Pop; rmq::Concurrently only), their
    /// messages invisible for `pop_invisible_millis`; the run is judged by rmq::sim::check_pop.
    bool pop = false;
    std::int64_t pop_invisible_millis = 20000;
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
