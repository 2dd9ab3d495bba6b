// A fault-injecting transport (the pattern of docs/policies/transport.md): a decorator over any
// rmq::Transport that fails some requests. The consumer must ride through failed pulls (retried after
// pull_time_delay_mills_when_exception), a failing CONSUMER_SEND_MSG_BACK (fallback: a retry copy sent to
// `%RETRY%group`), failed heartbeats and offset updates — and lose nothing.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using scenario::fast_config;
using scenario::Recorder;

namespace {

/// Which requests fail; shared by every copy of the transport (a Transport is copied into the consumer).
struct Faults {
    int fail_every_nth_pull = 0;          // 0: never
    bool fail_send_back = false;          // every CONSUMER_SEND_MSG_BACK
    std::atomic<int> fail_heartbeats{0};  // the next n heartbeats
    std::atomic<int> fail_offset_updates{0};
    std::atomic<int> pulls{0};
    std::atomic<int> failed_pulls{0};
    std::atomic<int> failed_send_backs{0};
    std::atomic<int> failed_heartbeats{0};
    std::atomic<int> failed_offset_updates{0};
};

/// Forwards everything to `Inner` except the requests `Faults` says to fail.
template <rmq::Transport Inner>
class FlakyTransport {
public:
    FlakyTransport(Inner inner, std::shared_ptr<Faults> faults)
        : inner_(std::move(inner))
        , faults_(std::move(faults)) {}

    rmq::TopicRoute topic_route(const std::string& topic) { return inner_.topic_route(topic); }

    void heartbeat(const rmq::HeartbeatData& hb) {
        if (take(faults_->fail_heartbeats)) {
            ++faults_->failed_heartbeats;
            throw rmq::BrokerError(rmq::response_code::system_busy, "injected: heartbeat failed");
        }
        inner_.heartbeat(hb);
    }

    void unregister_client(const std::string& client_id, const std::string& pg, const std::string& cg) {
        inner_.unregister_client(client_id, pg, cg);
    }

    std::vector<std::string> consumer_id_list(const std::string& topic, const std::string& group) {
        return inner_.consumer_id_list(topic, group);
    }

    void set_notification_handler(rmq::NotificationHandler handler) {
        inner_.set_notification_handler(std::move(handler));
    }

    // A failed pull is answered through the callback, at once and on the caller's thread: the concept allows
    // any thread, so the consumer must cope with a completion that runs inside pull().
    void pull(const rmq::PullArgs& args, rmq::PullCallback callback) {
        const int n = ++faults_->pulls;
        if (faults_->fail_every_nth_pull > 0 && n % faults_->fail_every_nth_pull == 0) {
            ++faults_->failed_pulls;
            callback(rmq::Outcome<rmq::PullResult>(rmq::response_code::system_busy, "injected: broker busy"));
            return;
        }
        inner_.pull(args, std::move(callback));
    }

    std::optional<std::int64_t> query_consumer_offset(const std::string& group, const rmq::MessageQueue& mq) {
        return inner_.query_consumer_offset(group, mq);
    }

    void update_consumer_offset(const std::string& group, const rmq::MessageQueue& mq, std::int64_t offset) {
        if (take(faults_->fail_offset_updates)) {
            ++faults_->failed_offset_updates;
            throw rmq::BrokerError(rmq::response_code::system_error, "injected: offset update failed");
        }
        inner_.update_consumer_offset(group, mq, offset);
    }

    std::int64_t min_offset(const rmq::MessageQueue& mq) { return inner_.min_offset(mq); }

    std::int64_t max_offset(const rmq::MessageQueue& mq) { return inner_.max_offset(mq); }

    std::int64_t search_offset(const rmq::MessageQueue& mq, std::int64_t ts) {
        return inner_.search_offset(mq, ts);
    }

    std::vector<rmq::MessageQueue> lock_batch(const std::string& group,
                                              const std::string& client_id,
                                              const std::vector<rmq::MessageQueue>& mqs) {
        return inner_.lock_batch(group, client_id, mqs);
    }

    void unlock_batch(const std::string& group,
                      const std::string& client_id,
                      const std::vector<rmq::MessageQueue>& mqs) {
        inner_.unlock_batch(group, client_id, mqs);
    }

    rmq::SendResult send(const rmq::Message& msg, const rmq::MessageQueue& mq) {
        return inner_.send(msg, mq);
    }

    void send_back(const rmq::SendBackArgs& args) {
        if (faults_->fail_send_back) {
            ++faults_->failed_send_backs;
            throw rmq::BrokerError(rmq::response_code::system_error, "injected: send back failed");
        }
        inner_.send_back(args);
    }

    [[nodiscard]] std::shared_ptr<rmq::Clock> clock() const { return inner_.clock(); }

private:
    static bool take(std::atomic<int>& budget) {
        int n = budget.load();
        while (n > 0) {
            if (budget.compare_exchange_weak(n, n - 1)) {
                return true;
            }
        }
        return false;
    }

    Inner inner_;
    std::shared_ptr<Faults> faults_;
};

static_assert(rmq::Transport<FlakyTransport<rmq::InProcessTransport>>);

}  // namespace

TEST_CASE("fault injection: failed pulls, send-backs, heartbeats and offset updates lose nothing",
          "[scenario][faults]") {
    rmq::BrokerConfig broker_config;
    broker_config.message_delay_level = "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s";
    rmq::InProcessBroker broker(broker_config);
    broker.create_topic("FaultTopic", 4);
    {
        auto tr = broker.connect();
        for (int i = 0; i < 200; ++i) {
            (void)tr.send(rmq::Message("FaultTopic", "TagA", std::to_string(i)),
                          broker.queue("FaultTopic", i % 4));
        }
    }

    auto faults = std::make_shared<Faults>();
    faults->fail_every_nth_pull = 3;
    faults->fail_send_back = true;
    faults->fail_heartbeats = 2;
    faults->fail_offset_updates = 3;

    Recorder rec;
    std::map<int, int> ok;          // message number → successful deliveries
    std::map<int, int> reconsumed;  // message number → reconsume_times of its successful delivery
    using Consumer = rmq::Consumer<rmq::Concurrently,
                                   rmq::AllocateAveragely,
                                   rmq::RemoteOffsetStore,
                                   FlakyTransport<rmq::InProcessTransport>>;
    Consumer consumer{FlakyTransport<rmq::InProcessTransport>(broker.connect(), faults),
                      fast_config("fault_group")};
    consumer.subscribe("FaultTopic", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        const int n = std::stoi(msgs.front().body());
        // Every tenth message fails its first delivery: the send-back fails and the fallback takes over.
        if (n % 10 == 0 && msgs.front().reconsume_times() == 0) {
            return rmq::ConsumeConcurrentlyStatus::ReconsumeLater;
        }
        rec.update([&] {
            ++ok[n];
            reconsumed[n] = msgs.front().reconsume_times();
        });
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();
    REQUIRE(rec.wait([&] { return ok.size() >= 200; }));
    consumer.shutdown();

    CHECK(faults->failed_pulls > 0);
    CHECK(faults->failed_send_backs == 20);
    CHECK(faults->failed_heartbeats == 2);
    CHECK(faults->failed_offset_updates == 3);
    rec.read([&] {
        CHECK(ok.size() == 200);
        for (const auto& [n, times] : ok) {
            INFO("message " << n);
            CHECK(times == 1);
            CHECK(reconsumed[n] == (n % 10 == 0 ? 1 : 0));
        }
        return 0;
    });
    // The retry copies went through %RETRY%fault_group (the fallback path), never the DLQ.
    CHECK(broker.messages("%RETRY%fault_group", 0).size() == 20);
    CHECK_FALSE(broker.has_topic("%DLQ%fault_group"));
}
