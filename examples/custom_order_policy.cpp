// A custom order policy written on the public host facade only (docs/policies/order.md walks through it).
//
// FreshOnly consumes one message per listener call, except that a message carrying an EXPIRE_AT property
// (wall-clock milliseconds) that has passed is skipped: committed without reaching the listener. Useful for
// feeds where a stale update is worse than none (prices, positions). The host does the rest as for
// rmq::Concurrently: failed messages go back to the broker (and return with their own topic), a call past
// consume_timeout is swept, the committed offset follows the min-offset rule.

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/producer.hpp>
#include <rmq/transport/in_process.hpp>

// --8<-- [start:policy]
struct FreshOnly {
    // The listener vocabulary: the same listener as rmq::Concurrently.
    using Context = rmq::ConsumeConcurrentlyContext;
    using Status = rmq::ConsumeConcurrentlyStatus;
    using Listener = std::function<std::optional<Status>(std::span<const rmq::MessageExt>, Context&)>;
    static constexpr std::string_view listener_signature =
        "(std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) -> "
        "rmq::ConsumeConcurrentlyStatus";
    static constexpr Status failure_status = Status::ReconsumeLater;  // an exception or nullopt

    static constexpr bool is_success(Status status) noexcept { return status == Status::ConsumeSuccess; }

    // No broker locks, pulls pause on a wide offset span, 16 retries by default.
    static constexpr bool requires_queue_lock = false;
    static constexpr bool span_flow_control = true;
    static constexpr bool unlimited_retries_by_default = false;

    static constexpr std::string_view expire_at = "EXPIRE_AT";

    template <class Host>  // Host = rmq::OrderHost<FreshOnly>
    class Service {
    public:
        explicit Service(Host& host)
            : host_(host) {}

        // Event loop: the messages are cached already; one listener call each, on the consume pool.
        void on_messages(const rmq::ConsumeQueue& q, const rmq::MessageBatch& msgs) {
            for (std::size_t i = 0; i < msgs.size(); ++i) {
                host_.submit([this, q, one = msgs.slice(i, 1)]() mutable { consume(q, std::move(one)); });
            }
        }

    private:
        // Consume thread. The host prepares the message, runs hooks and listener, and on settle() sends a
        // failure back to the broker and commits by the min-offset rule.
        void consume(const rmq::ConsumeQueue& q, rmq::MessageBatch one) {
            if (expired(one[0])) {
                const std::int64_t offset = one[0].queue_offset();
                host_.ack(q, std::span(&offset, 1));  // committed, never seen
                return;
            }
            Context ctx(q.mq());
            if (const auto call = host_.consume(q, one, ctx)) {
                const bool ok = call->status == Status::ConsumeSuccess;
                host_.settle(q, std::move(one), ok ? 1 : 0, ctx.delay_level_when_next_consume());
            }
        }

        bool expired(const rmq::MessageExt& msg) const {
            const auto text = msg.property_view(expire_at);
            std::int64_t at = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), at);
            return ec == std::errc{} && end == text.data() + text.size() && at < host_.clock()->wall_millis();
        }

        Host& host_;
    };
};

// --8<-- [end:policy]

static_assert(rmq::OrderPolicy<FreshOnly>);

int main() {
    rmq::BrokerConfig broker_config;
    broker_config.message_delay_level =
        "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s";  // quick retries
    rmq::InProcessBroker broker(broker_config);
    broker.create_topic("Prices", 2);
    rmq::Producer<rmq::InProcessTransport> producer(broker.connect(),
                                                    rmq::ProducerConfig{.producer_group = "price_feed"});
    producer.start();
    const std::int64_t now = rmq::system_clock()->wall_millis();
    for (int i = 0; i < 10; ++i) {
        rmq::Message msg("Prices", "", fmt::format("update {}", i));
        // Even updates were only valid until a minute ago; odd ones for another hour.
        msg.set_property(FreshOnly::expire_at, std::to_string(i % 2 == 0 ? now - 60'000 : now + 3'600'000));
        (void)producer.send(msg);
    }
    producer.shutdown();

    struct Seen {
        std::string body;
        std::string topic;
        int reconsume_times = 0;
    };

    std::mutex mutex;
    std::vector<Seen> seen;
    rmq::Consumer<FreshOnly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>
        consumer{broker.connect(),
                 rmq::ConsumerConfig{.consumer_group = "fresh_group",
                                     .consume_from_where = rmq::ConsumeFromWhere::FirstOffset}};
    consumer.subscribe("Prices", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        const std::lock_guard lock(mutex);
        bool fail = false;
        for (const auto& msg : msgs) {
            seen.push_back({msg.body(), msg.topic(), msg.reconsume_times()});
            fail = fail || (msg.body() == "update 3" && msg.reconsume_times() == 0);  // fails once
        }
        return fail ? rmq::ConsumeConcurrentlyStatus::ReconsumeLater
                    : rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();

    // Wait until both queues are committed up to their ends (10 messages, fresh or skipped) and the failed
    // update came back from the retry topic.
    const auto committed = [&] {
        std::int64_t sum = 0;
        for (const auto& q : consumer.stats().queues) {
            if (q.mq.topic == "Prices") {
                sum += std::max<std::int64_t>(0, q.commit_offset);
            }
        }
        return sum;
    };
    const auto calls = [&] {
        const std::lock_guard lock(mutex);
        return seen.size();
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while ((committed() < 10 || calls() < 6) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const std::int64_t offsets = committed();
    consumer.shutdown();
    const std::lock_guard lock(mutex);
    int stale = 0;
    const Seen* retried = nullptr;
    for (const auto& s : seen) {
        stale += (s.body.back() - '0') % 2 == 0 ? 1 : 0;
        retried = s.reconsume_times == 1 ? &s : retried;
    }
    if (seen.size() != 6 || stale != 0 || offsets != 10 || retried == nullptr || retried->topic != "Prices") {
        fmt::print(
            "FAILED: {} listener calls ({} stale), offsets committed up to {} of 10, retried update {}\n",
            seen.size(),
            stale,
            offsets,
            retried != nullptr ? fmt::format("seen with topic {}", retried->topic) : "not seen");
        return 1;
    }
    fmt::print(
        "5 fresh updates consumed (update 3 retried once, from topic {}), 5 expired ones skipped; offsets "
        "committed up to 10\n",
        retried->topic);
    return 0;
}
