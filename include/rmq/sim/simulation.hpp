#pragma once

/// @file sim/simulation.hpp
/// Deterministic simulation (docs/simulation.md): one embedded broker (or several) and several consumers of
/// one group on one virtual clock and one thread, a seeded fault injector between them (lost, late, reordered
/// and duplicated answers; members that crash without unregistering or pause past their lock expiry; broker
/// restarts that lose the last second of offsets; broker outages during which a member starts), and
/// rmq::sim::check over what happened (POP members, Options::pop: rmq::sim::check_pop). A seed is one
/// exact history: the same seed replays it, event for event.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/allocate/averagely.hpp>
#include <rmq/clock.hpp>
#include <rmq/consumer.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/pop.hpp>
#include <rmq/protocol.hpp>
#include <rmq/sim/options.hpp>
#include <rmq/sim/pop_trace.hpp>
#include <rmq/sim/trace.hpp>
#include <rmq/transport/broker_config.hpp>
#include <rmq/transport/in_process.hpp>

#include <rmq/detail/check/ownership.hpp>
#include <rmq/detail/consumer/driven.hpp>
#include <rmq/detail/sim/context.hpp>
#include <rmq/detail/sim/pop.hpp>
#include <rmq/detail/sim/routes.hpp>
#include <rmq/detail/sim/world.hpp>

namespace rmq::sim {

/// One member's connection to the simulated brokers; models the rmq::Transport concept (hence not named
/// Transport: rmq::sim::Transport would hide the concept inside rmq::sim). It injects the request and
/// answer faults of rmq::sim::Faults while faults are on, and puts its consumer under the simulation's
/// driver (no threads). Made by rmq::sim::Simulation.
class SimTransport {
public:
    SimTransport(const std::shared_ptr<detail::sim::Context>& ctx, std::size_t member)
        : SimTransport(ctx, member, std::make_shared<detail::sim::MemberRoutes>(ctx, member)) {}

    /// `routes`: this member's connections (the simulation keeps them to tell of broker outages).
    SimTransport(std::shared_ptr<detail::sim::Context> ctx,
                 std::size_t member,
                 std::shared_ptr<detail::sim::MemberRoutes> routes)
        : ctx_(std::move(ctx))
        , member_(member)
        , routes_(std::move(routes)) {}

    TopicRoute topic_route(const std::string& topic) { return routes_->topic_route(topic); }

    void heartbeat(const HeartbeatData& hb) {
        if (ctx_->strike(ctx_->options.faults.heartbeat_drop)) {
            ctx_->record(FaultKind::HeartbeatDropped, member());
            throw Timeout("simulated: the heartbeat was lost");
        }
        routes_->heartbeat(hb);
    }

    void unregister_client(const std::string& client_id,
                           const std::string& producer_group,
                           const std::string& consumer_group) {
        for (std::size_t i = 0; i < ctx_->world.broker_count(); ++i) {
            if (ctx_->world.broker_up(i)) {
                routes_->to(i).unregister_client(client_id, producer_group, consumer_group);
            }
        }
    }

    std::vector<std::string> consumer_id_list(const std::string& topic, const std::string& group) {
        return routes_->consumer_id_list(topic, group);
    }

    void set_notification_handler(const NotificationHandler& handler) {
        routes_->set_notification_handler(handler);
    }

    /// Told when this member's route view changes (runs with several brokers: a broker went down or came
    /// back, as its route reads saw it).
    void set_route_change_handler(const std::string& key, RouteChangeHandler handler) {
        routes_->set_route_change_handler(key, std::move(handler));
    }

    void pull(const PullArgs& args, PullCallback callback) {
        if (refuse_pull(args, callback)) {
            return;
        }
        routes_->to(args.mq).pull(args, wrap(args, std::move(callback)));
    }

    void pull(const PullArgs& args, PullCallback callback, const PostToCaller& post) {
        if (refuse_pull(args, callback)) {
            return;
        }
        routes_->to(args.mq).pull(args, wrap(args, std::move(callback)), post);
    }

    std::optional<std::int64_t> query_consumer_offset(const std::string& group, const MessageQueue& mq) {
        return routes_->to(mq).query_consumer_offset(group, mq);
    }

    void update_consumer_offset(const std::string& group, const MessageQueue& mq, std::int64_t offset) {
        const auto& f = ctx_->options.faults;
        if (ctx_->strike(f.offset_drop)) {
            ctx_->record(FaultKind::OffsetDropped, member(), detail::sim::queue_name(mq));
            throw Timeout("simulated: the offset update was lost");
        }
        if (ctx_->strike(f.offset_delay)) {
            ctx_->record(FaultKind::OffsetDelayed, member(), detail::sim::queue_name(mq));
            apply_later(group, mq, offset);
            return;
        }
        routes_->to(mq).update_consumer_offset(group, mq, offset);
        if (ctx_->strike(f.offset_duplicate)) {
            ctx_->record(FaultKind::OffsetDuplicated, member(), detail::sim::queue_name(mq));
            apply_later(group, mq, offset);
        }
    }

    std::int64_t min_offset(const MessageQueue& mq) { return routes_->to(mq).min_offset(mq); }

    std::int64_t max_offset(const MessageQueue& mq) { return routes_->to(mq).max_offset(mq); }

    std::int64_t search_offset(const MessageQueue& mq, std::int64_t timestamp_millis) {
        return routes_->to(mq).search_offset(mq, timestamp_millis);
    }

    std::vector<MessageQueue>
    lock_batch(const std::string& group, const std::string& client_id, const std::vector<MessageQueue>& mqs) {
        auto granted =
            (mqs.empty() ? routes_->to(0) : routes_->to(mqs.front())).lock_batch(group, client_id, mqs);
        if (ctx_->strike(ctx_->options.faults.lock_answer_drop)) {
            ctx_->record(FaultKind::LockAnswerDropped,
                         member(),
                         mqs.empty() ? std::string{} : detail::sim::queue_name(mqs.front()));
            throw Timeout("simulated: the lock answer was lost");
        }
        return granted;
    }

    void unlock_batch(const std::string& group,
                      const std::string& client_id,
                      const std::vector<MessageQueue>& mqs) {
        (mqs.empty() ? routes_->to(0) : routes_->to(mqs.front())).unlock_batch(group, client_id, mqs);
    }

    SendResult send(const Message& msg, const MessageQueue& mq) { return routes_->to(mq).send(msg, mq); }

    void send_back(const SendBackArgs& args) {
        const auto& name = args.message.broker_name();
        routes_->to(name.empty() ? 0 : routes_->index_of(name)).send_back(args);
    }

    // ---- POP (Options::pop): faults in detail/sim/pop.hpp ----
    /// Synchronous POP_MESSAGE (rmq::HasPop): the POP mode uses the asynchronous one below.
    PopResult pop_message(const PopArgs& args) {
        return routes_->to(routes_->index_of(args.broker_name)).pop_message(args);
    }

    /// POP_MESSAGE (rmq::HasAsyncPop): held by the driven broker for long polling, answered as a broker
    /// callback; a broker that is down fails it at once.
    void pop_message(const PopArgs& args, PopCompletion done) {
        try {
            routes_->to(routes_->index_of(args.broker_name))
                .pop_message(args, detail::sim::pop_completion(ctx_, member(), std::move(done)));
        } catch (...) {
            ctx_->world.at(ctx_->world.now() + 1,
                           [done, error = std::current_exception()] { done(PopResult{}, error); });
        }
    }

    void ack_message(const AckArgs& args) {
        if (detail::sim::ack_lost(*ctx_, member(), args)) {
            throw Timeout("simulated: the ack was lost");
        }
        routes_->to(routes_->index_of(receipt_broker(args.extra_info))).ack_message(args);
    }

    std::string change_invisible_time(const ChangeInvisibleTimeArgs& args) {
        auto receipt =
            routes_->to(routes_->index_of(receipt_broker(args.extra_info))).change_invisible_time(args);
        if (const auto it = ctx_->receipts.find(args.extra_info); it != ctx_->receipts.end()) {
            ctx_->receipts.insert_or_assign(receipt, it->second);
        }
        return receipt;
    }

    [[nodiscard]] std::shared_ptr<Clock> clock() const { return ctx_->world.clock(); }

    // ---- the driver (rmq::detail::DrivenTransport) ----
    [[nodiscard]] bool driven() const noexcept { return true; }

    void attach_driven(detail::DrivenMember hooks) { ctx_->world.attach(member_, std::move(hooks)); }

    void detach_driven() { ctx_->world.detach(member_); }

private:
    [[nodiscard]] int member() const noexcept { return static_cast<int>(member_); }

    static std::string receipt_broker(const std::string& receipt) {
        return PopReceipt::parse(receipt).broker_name;
    }

    // A pull to a broker that is down fails at once (a refused connection), as the callback sees it.
    bool refuse_pull(const PullArgs& args, PullCallback& callback) {
        const auto i = routes_->index_of(args.mq.broker_name);
        if (ctx_->world.broker_up(i)) {
            return false;
        }
        ctx_->world.at(ctx_->world.now() + 1, [cb = std::move(callback)] {
            cb(Outcome<PullResult>(response_code::system_error, "simulated: the broker is down"));
        });
        return true;
    }

    void apply_later(const std::string& group, const MessageQueue& mq, std::int64_t offset) {
        const auto& f = ctx_->options.faults;
        auto state = ctx_->world.broker(routes_->index_of(mq.broker_name));
        ctx_->world.at(
            ctx_->world.now() + ctx_->world.uniform(1, f.max_delay_millis), [state, group, mq, offset] {
                try {
                    state->update_consumer_offset(group, mq, offset);
                } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): a late request may fail
                }
            });
    }

    PullCallback wrap(const PullArgs& args, PullCallback callback) {
        return [ctx = ctx_,
                member = member(),
                queue = detail::sim::queue_name(args.mq),
                asked = ctx_->world.now(),
                cb = std::move(callback)](Outcome<PullResult> outcome) {
            const auto& f = ctx->options.faults;
            World& world = ctx->world;
            if (ctx->strike(f.pull_drop)) {
                ctx->record(FaultKind::PullDropped, member, queue);
                world.at(std::max(asked + f.pull_timeout_millis, world.now() + 1), [cb] {
                    cb(Outcome<PullResult>(response_code::system_error, "simulated: the pull timed out"));
                });
                return;
            }
            if (ctx->strike(f.pull_delay)) {
                ctx->record(FaultKind::PullDelayed, member, queue);
                auto shared = std::make_shared<Outcome<PullResult>>(std::move(outcome));
                world.at(world.now() + world.uniform(1, f.max_delay_millis),
                         [cb, shared] { cb(std::move(*shared)); });
                return;
            }
            cb(std::move(outcome));
        };
    }

    using World = detail::sim::World;

    std::shared_ptr<detail::sim::Context> ctx_;
    std::size_t member_;
    std::shared_ptr<detail::sim::MemberRoutes> routes_;
};

/// The consumer type a simulation runs for order policy `Order`.
template <class Order>
using SimConsumer = Consumer<Order, AllocateAveragely, RemoteOffsetStore, SimTransport>;

/// One seeded run: members of `Order` consuming with the given listener while faults strike. run() returns
/// the trace; rmq::sim::check judges it. Not thread-safe: everything runs on the caller's thread.
template <class Order>
class Simulation {
public:
    using Listener = typename Order::Listener;

    /// `listener` is every member's listener (yours); the simulation records each message it handles.
    Simulation(Options options, Listener listener)
        : ctx_(std::make_shared<detail::sim::Context>(options.seed, BrokerConfig{}, options))
        , listener_(std::move(listener)) {}

    Simulation(const Simulation&) = delete;
    Simulation& operator=(const Simulation&) = delete;

    ~Simulation() {
        ctx_->faults_on = false;
        ctx_->world.shutdown();  // drops the pending work that points into the members
        members_.clear();        // before the world they run in
        ctx_->world.shutdown();  // and what their shutdown posted
    }

    /// Runs the whole scenario of the seed and returns what happened.
    const Trace& run() {
        const Options& o = ctx_->options;
        detail::sim::World& w = ctx_->world;
        for (std::size_t b = 0; b < w.broker_count(); ++b) {
            w.broker(b)->create_topic(o.topic, o.queues);
        }
        held_sends_.resize(w.broker_count());
        for (int i = 0; i < o.members; ++i) {
            w.at(w.uniform(0, 2000), [this] { start_member(); });
        }
        schedule_sends();
        schedule_scenario_faults();
        checkpoint_offsets_every_second();
        ctx_->faults_on = true;
        w.at(o.fault_millis, [this] { ctx_->faults_on = false; });
        const std::int64_t end = o.fault_millis + o.settle_millis;
        std::size_t registered = 0;
        std::int64_t looked_at = -1;
        (void)w.run_until(end, [this, &o, &w, &registered, &looked_at] {
            if (w.now() != looked_at) {  // the broker expires members when the clock moves, not in between
                note_owners(looked_at);
                looked_at = w.now();
                note_expired_members(registered);
            }
            return w.now() >= o.fault_millis && handled_ok_.size() == static_cast<std::size_t>(o.messages);
        });
        owners_.finish(looked_at, ctx_->trace.double_ownership);
        finished_ = true;
        return ctx_->trace;
    }

    [[nodiscard]] const Trace& trace() const noexcept { return ctx_->trace; }

    /// POP runs (Options::pop): what the pops returned and the acks lost, for rmq::sim::check_pop.
    [[nodiscard]] const PopTrace& pop_trace() const noexcept { return ctx_->pop_trace; }

    /// Units of work the driver ran.
    [[nodiscard]] std::uint64_t steps() const noexcept { return ctx_->world.steps(); }

    /// Virtual time reached (ms).
    [[nodiscard]] std::int64_t virtual_millis() const { return ctx_->world.now(); }

private:
    struct Member {
        std::size_t index = 0;
        std::string client_id;
        std::shared_ptr<detail::sim::MemberRoutes> routes;
        std::unique_ptr<SimConsumer<Order>> consumer;
    };

    /// Each live member's assignment as it stood since virtual time `since` (the previous clock value).
    void note_owners(std::int64_t since) {
        if (since < 0) {
            return;
        }
        detail::check::OwnershipTracker<DoubleOwnership>::Owners owners;
        for (const auto& m : members_) {
            if (ctx_->world.crashed(m->index) || ctx_->world.paused(m->index) || !m->consumer->running()) {
                continue;
            }
            for (const auto& mq : m->consumer->assigned_queues()) {
                if (mq.topic == ctx_->options.topic) {
                    owners[detail::sim::queue_name(mq)].insert(static_cast<int>(m->index));
                }
            }
        }
        owners_.sample(since, owners, ctx_->trace.double_ownership);
    }

    /// The broker dropping a member whose heartbeats stopped moves its queues to the others, long after the
    /// crash or pause that caused it: recorded (each time the clock moved), so that this rebalance's
    /// re-deliveries are explained. `registered`: the group's member count when last looked at.
    void note_expired_members(std::size_t& registered) {
        const std::size_t now = ctx_->world.broker()->group_members(ctx_->options.group).size();
        if (now < registered) {
            ctx_->record(FaultKind::MemberExpired, -1);
        }
        registered = now;
    }

    std::vector<std::size_t> live_members() const {
        std::vector<std::size_t> live;
        for (const auto& m : members_) {
            if (!ctx_->world.crashed(m->index)) {
                live.push_back(m->index);
            }
        }
        return live;
    }

    void start_member() {
        const Options& o = ctx_->options;
        auto m = std::make_unique<Member>();
        m->index = ctx_->world.add_member();
        ConsumerConfig config;
        config.consumer_group = o.group;
        config.client_ip = fmt::format("10.0.{}.{}", m->index / 250, m->index % 250 + 1);
        config.instance_name = "sim";
        config.consume_from_where = ConsumeFromWhere::FirstOffset;
        if (o.pop) {
            config.message_request_mode = MessageRequestMode::Pop;
            config.pop_invisible_time = o.pop_invisible_millis;
        }
        m->client_id = config.build_client_id();
        m->routes = std::make_shared<detail::sim::MemberRoutes>(ctx_, m->index);
        m->consumer =
            std::make_unique<SimConsumer<Order>>(SimTransport(ctx_, m->index, m->routes), std::move(config));
        m->consumer->subscribe(o.topic, "*");
        m->consumer->register_listener(recording_listener(static_cast<int>(m->index), m->client_id));
        ctx_->record(FaultKind::MemberJoined, static_cast<int>(m->index));
        m->consumer->start();
        members_.push_back(std::move(m));
    }

    Listener recording_listener(int member, std::string client_id) {
        return [this, member, client_id = std::move(client_id)](std::span<const MessageExt> msgs,
                                                                typename Order::Context& ctx) {
            auto status = listener_(msgs, ctx);
            const bool success = status && Order::is_success(*status);
            const auto& mq = ctx.message_queue();
            const auto broker = ctx_->world.broker_index(mq.broker_name);
            const auto owner = ctx_->world.broker(broker.value_or(0))->lock_owner(ctx_->options.group, mq);
            const bool lock_held = owner && *owner == client_id;
            for (const auto& msg : msgs) {
                const int key = key_of(msg);
                const int seq = seq_of(msg);
                if (key < 0 || seq < 0 || finished_) {
                    continue;
                }
                ctx_->trace.handled.push_back(Handled{
                    ctx_->world.now(), member, key, seq, detail::sim::queue_name(mq), success, lock_held});
                if (success) {
                    handled_ok_.insert({key, seq});
                }
            }
            return status;
        };
    }

    void schedule_sends() {
        const Options& o = ctx_->options;
        detail::sim::World& w = ctx_->world;
        std::vector<std::int64_t> times;
        times.reserve(static_cast<std::size_t>(o.messages));
        for (int i = 0; i < o.messages; ++i) {
            times.push_back(w.uniform(0, o.send_millis));
        }
        std::sort(times.begin(), times.end());
        std::vector<int> next_seq(static_cast<std::size_t>(o.keys), 0);
        for (const auto t : times) {
            const int key = static_cast<int>(w.uniform(0, o.keys - 1));
            const int seq = next_seq[static_cast<std::size_t>(key)]++;
            w.at(t, [this, key, seq] { send(key, seq); });
        }
    }

    // Key k goes to queue k % (queues * brokers) counted across the brokers in order. A broker that is down
    // holds its sends until it is back (in order: a key's sequence stays in order in its queue).
    void send(int key, int seq) {
        const Options& o = ctx_->options;
        const auto& w = ctx_->world;
        const int slot = key % (o.queues * static_cast<int>(w.broker_count()));
        const auto b = static_cast<std::size_t>(slot / o.queues);
        if (!w.broker_up(b) || !held_sends_[b].empty()) {
            held_sends_[b].emplace_back(key, seq);
            return;
        }
        auto& broker = *w.broker(b);
        const int queue_id = slot % o.queues;
        const MessageQueue mq{o.topic, broker.config().broker_name, queue_id};
        Message msg(o.topic, "", fmt::format("k{}", key), fmt::format("message {} of key {}", seq, key));
        msg.set_property("SIM_SEQ", std::to_string(seq));
        (void)broker.send(msg, mq);
        const bool duplicated = ctx_->strike(o.faults.send_duplicate);
        if (duplicated) {
            ctx_->record(FaultKind::SendDuplicated, -1, detail::sim::queue_name(mq));
            (void)broker.send(msg, mq);
        }
        ctx_->trace.sent.push_back(Sent{key, seq, queue_id, duplicated});
    }

    void schedule_scenario_faults() {
        const Options& o = ctx_->options;
        detail::sim::World& w = ctx_->world;
        const Faults& f = o.faults;
        for (int i = 0; i < f.crashes; ++i) {
            w.at(w.uniform(5000, o.fault_millis - 1), [this] {
                auto live = live_members();
                if (live.size() < 2) {
                    return;  // keep one member
                }
                detail::sim::World& world = ctx_->world;
                const auto victim = live[static_cast<std::size_t>(
                    world.uniform(0, static_cast<std::int64_t>(live.size()) - 1))];
                world.crash(victim);
                ctx_->record(FaultKind::MemberCrashed, static_cast<int>(victim));
                world.at(world.now() + world.uniform(1000, 30000), [this] { start_member(); });
            });
        }
        for (int i = 0; i < f.pauses; ++i) {
            w.at(w.uniform(5000, o.fault_millis - 1), [this] {
                auto live = live_members();
                if (live.empty()) {
                    return;
                }
                detail::sim::World& world = ctx_->world;
                const Faults& faults = ctx_->options.faults;
                const auto victim = live[static_cast<std::size_t>(
                    world.uniform(0, static_cast<std::int64_t>(live.size()) - 1))];
                world.pause(victim,
                            world.now() + world.uniform(faults.pause_min_millis, faults.pause_max_millis));
                ctx_->record(FaultKind::MemberPaused, static_cast<int>(victim));
            });
        }
        for (int i = 0; i < f.restarts; ++i) {
            w.at(w.uniform(5000, o.fault_millis - 1), [this] {
                ctx_->world.broker()->restart();
                ctx_->record(FaultKind::BrokerRestarted, -1);
            });
        }
        if (w.broker_count() > 1) {
            for (int i = 0; i < f.outages; ++i) {
                w.at(w.uniform(5000, o.fault_millis - 1), [this] { broker_outage(); });
            }
        }
    }

    // A broker goes down for a while; a member may start meanwhile (it never hears of that broker until a
    // route read lists it again). Members connected to it see the connection events.
    void broker_outage() {
        detail::sim::World& w = ctx_->world;
        const Faults& f = ctx_->options.faults;
        const auto b =
            static_cast<std::size_t>(w.uniform(0, static_cast<std::int64_t>(w.broker_count()) - 1));
        if (!w.broker_up(b)) {
            return;
        }
        const std::int64_t back = w.now() + w.uniform(f.outage_min_millis, f.outage_max_millis);
        w.take_down(b, back);
        ctx_->record(FaultKind::BrokerDown, -1);
        tell_members(b);
        if (f.member_starts_during_outage) {
            w.at(w.uniform(w.now() + 1, back - 1), [this] { start_member(); });
        }
        w.at(back, [this, b] {
            ctx_->record(FaultKind::BrokerUp, -1);
            tell_members(b);
            auto held = std::move(held_sends_[b]);
            held_sends_[b].clear();
            for (const auto& [key, seq] : held) {
                send(key, seq);
            }
        });
    }

    void tell_members(std::size_t broker) {
        for (const auto& m : members_) {
            m->routes->on_broker_event(broker);
        }
    }

    // The broker flushes consumer offsets every second; a restart loses what came after the last flush.
    void checkpoint_offsets_every_second() {
        detail::sim::World& w = ctx_->world;
        for (std::size_t b = 0; b < w.broker_count(); ++b) {
            w.broker(b)->checkpoint_offsets();
        }
        if (!finished_ && w.now() < ctx_->options.fault_millis + ctx_->options.settle_millis) {
            w.at(w.now() + 1000, [this] { checkpoint_offsets_every_second(); });
        }
    }

    std::shared_ptr<detail::sim::Context> ctx_;
    Listener listener_;
    std::vector<std::unique_ptr<Member>> members_;
    std::set<std::pair<int, int>> handled_ok_;
    std::vector<std::vector<std::pair<int, int>>> held_sends_;  // per broker: (key, seq) waiting for it
    detail::check::OwnershipTracker<DoubleOwnership> owners_;
    bool finished_ = false;
};

}  // namespace rmq::sim
