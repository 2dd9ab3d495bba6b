#pragma once

/// @file detail/sim/routes.hpp
/// rmq::detail::sim::MemberRoutes: one simulated member's connections to the brokers of a run with several
/// brokers, and what its transport knows of them. It models how rmq::RemotingTransport learns of brokers
/// (rmq::sim::RouteModel): the route read at start and then at the periodic poll, the route check, the
/// route watch after a connection event; a broker first seen in a route read (new, or back) is heartbeated
/// and a changed route reported to the consumer (rmq::HasRouteChangeHandler); the group's member list is
/// the union of the known brokers' answers or one broker's. With one broker it is a plain connection.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/transport/in_process.hpp>

#include <rmq/detail/sim/context.hpp>

namespace rmq::detail::sim {

class MemberRoutes : public std::enable_shared_from_this<MemberRoutes> {
public:
    MemberRoutes(std::shared_ptr<Context> ctx, std::size_t member)
        : ctx_(std::move(ctx))
        , member_(member) {
        for (std::size_t i = 0; i < ctx_->world.broker_count(); ++i) {
            conns_.push_back(ctx_->world.connect(i));
        }
    }

    [[nodiscard]] bool single() const noexcept { return conns_.size() == 1; }

    /// The connection to broker `i`; rmq::Timeout while it is down (a refused connection).
    InProcessTransport& to(std::size_t i) {
        if (!ctx_->world.broker_up(i)) {
            throw Timeout(fmt::format("simulated: {} is down", name(i)));
        }
        return conns_.at(i);
    }

    /// The connection to the broker of `mq`.
    InProcessTransport& to(const MessageQueue& mq) { return to(index_of(mq.broker_name)); }

    [[nodiscard]] std::size_t index_of(const std::string& broker_name) const {
        const auto i = ctx_->world.broker_index(broker_name);
        if (!i) {
            throw Error(fmt::format("simulated: no broker named {}", broker_name));
        }
        return *i;
    }

    /// The route of `topic` as last read: the queues of the known brokers that have it.
    TopicRoute topic_route(const std::string& topic) {
        if (single()) {
            return conns_.front().topic_route(topic);
        }
        start();
        TopicRoute route;
        for (const auto i : known_) {
            if (ctx_->world.broker(i)->has_topic(topic)) {
                const auto r = conns_[i].topic_route(topic);
                route.read_queues.insert(route.read_queues.end(), r.read_queues.begin(), r.read_queues.end());
                route.write_queues.insert(
                    route.write_queues.end(), r.write_queues.begin(), r.write_queues.end());
            }
        }
        if (route.read_queues.empty()) {
            throw BrokerError(response_code::topic_not_exist,
                              fmt::format("simulated: no route for {}", topic));
        }
        return route;
    }

    /// To every known broker that is up; rmq::Timeout when none took it.
    void heartbeat(const HeartbeatData& hb) {
        if (single()) {
            conns_.front().heartbeat(hb);
            return;
        }
        start();
        if (!hb.consumer_data_set.empty()) {
            last_heartbeat_ = hb;
        }
        bool sent = false;
        for (const auto i : known_) {
            sent = heartbeat_to(i, hb) || sent;
        }
        if (!sent) {
            throw Timeout("simulated: no broker took the heartbeat");
        }
    }

    /// The union of the known brokers' answers (RouteModel::member_list_union) or one's, picked at random.
    std::vector<std::string> consumer_id_list(const std::string& topic, const std::string& group) {
        if (single()) {
            return conns_.front().consumer_id_list(topic, group);
        }
        start();
        std::vector<std::size_t> up;
        for (const auto i : known_) {
            if (ctx_->world.broker_up(i)) {
                up.push_back(i);
            }
        }
        if (up.empty()) {
            throw Timeout("simulated: no broker of the route is up");
        }
        if (!ctx_->options.routes.member_list_union) {
            const auto pick = ctx_->world.uniform(0, static_cast<std::int64_t>(up.size()) - 1);
            return conns_[up[static_cast<std::size_t>(pick)]].consumer_id_list(topic, group);
        }
        std::set<std::string> ids;
        std::optional<std::string> failure;
        for (const auto i : up) {
            try {
                for (auto& id : conns_[i].consumer_id_list(topic, group)) {
                    ids.insert(std::move(id));
                }
            } catch (const std::exception& e) {  // a broker that has no member of the group yet
                failure = e.what();
            }
        }
        if (ids.empty()) {
            throw BrokerError(response_code::system_error, failure.value_or("simulated: no member"));
        }
        return {ids.begin(), ids.end()};
    }

    void set_notification_handler(const NotificationHandler& handler) {
        for (auto& c : conns_) {
            c.set_notification_handler(handler);
        }
    }

    void set_route_change_handler(const std::string& key, RouteChangeHandler handler) {
        if (handler) {
            handlers_[key] = std::move(handler);
        } else {
            handlers_.erase(key);
        }
    }

    /// Broker `i` went down or came back: a member that had a connection to it sees the connection event
    /// and watches the routes (reads now and then every second, RouteModel::watch_reads times).
    void on_broker_event(std::size_t i) {
        if (!connected_.contains(i)) {
            return;
        }
        World& w = ctx_->world;
        std::int64_t when = w.now() + w.uniform(0, 200);
        for (int n = 0; n < ctx_->options.routes.watch_reads; ++n, when += 1000) {
            w.at(when, [weak = weak_from_this()] {
                if (const auto self = weak.lock()) {
                    self->read_routes();
                }
            });
        }
    }

private:
    [[nodiscard]] std::string name(std::size_t i) const {
        return ctx_->world.broker(i)->config().broker_name;
    }

    [[nodiscard]] bool runs() const { return !ctx_->world.crashed(member_) && !ctx_->world.paused(member_); }

    // The first use reads the routes and starts the periodic reads.
    void start() {
        if (started_) {
            return;
        }
        started_ = true;
        read_routes();
        const auto& m = ctx_->options.routes;
        every(m.poll_millis, true);
        if (m.check_millis > 0) {
            every(m.check_millis, false);
        }
    }

    void every(std::int64_t period, bool heartbeat_all) {
        ctx_->world.at(ctx_->world.now() + period, [weak = weak_from_this(), period, heartbeat_all] {
            const auto self = weak.lock();
            if (!self || self->ctx_->world.crashed(self->member_)) {
                return;
            }
            if (self->runs()) {
                self->read_routes();
                if (heartbeat_all && self->last_heartbeat_) {
                    for (const auto i : self->known_) {
                        (void)self->heartbeat_to(i, *self->last_heartbeat_);
                    }
                }
            }
            self->every(period, heartbeat_all);
        });
    }

    // The NameServer lists the brokers that are up. One not in the last read (new, or back) is heartbeated
    // at once; a change is reported to the consumer, which rebalances.
    void read_routes() {
        if (!runs()) {
            return;
        }
        std::set<std::size_t> now;
        for (std::size_t i = 0; i < conns_.size(); ++i) {
            if (ctx_->world.broker_up(i)) {
                now.insert(i);
            }
        }
        if (now == known_) {
            return;
        }
        const bool first = known_.empty();
        std::vector<std::size_t> appeared;
        for (const auto i : now) {
            if (!known_.contains(i)) {
                appeared.push_back(i);
            }
        }
        known_ = std::move(now);
        if (last_heartbeat_) {
            for (const auto i : appeared) {
                (void)heartbeat_to(i, *last_heartbeat_);
            }
        }
        if (!first) {
            notify_route_changed();
        }
    }

    void notify_route_changed() {
        const auto handlers = handlers_;  // a handler may unregister
        for (const auto& [key, h] : handlers) {
            h(ctx_->options.topic);
        }
    }

    bool heartbeat_to(std::size_t i, const HeartbeatData& hb) {
        if (!ctx_->world.broker_up(i)) {
            return false;
        }
        conns_[i].heartbeat(hb);
        connected_.insert(i);
        return true;
    }

    std::shared_ptr<Context> ctx_;
    std::size_t member_;
    std::vector<InProcessTransport> conns_;
    std::set<std::size_t> known_;      // the brokers of the last route read
    std::set<std::size_t> connected_;  // the brokers this member ever reached
    std::optional<HeartbeatData> last_heartbeat_;
    std::map<std::string, RouteChangeHandler> handlers_;
    bool started_ = false;
};

}  // namespace rmq::detail::sim
