// A custom order policy written on the public host facade only (docs/policies/order.md walks through it).
//
// FreshOnly consumes like rmq::Concurrently, except that a message carrying an EXPIRE_AT property (wall-clock
// milliseconds) that has passed is skipped: committed without reaching the listener. Useful for feeds where a
// stale update is worse than none (prices, positions). Failed messages are sent back to the broker; the
// committed offset follows the ProcessQueue's min-offset rule, as for rmq::Concurrently.

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

    // What the consumer does for us: no broker locks, pulls pause on a wide offset span, 16 retries by
    // default.
    static constexpr bool requires_queue_lock = false;
    static constexpr bool span_flow_control = true;
    static constexpr bool unlimited_retries_by_default = false;

    static constexpr std::string_view expire_at = "EXPIRE_AT";

    template <class Host>  // Host = rmq::OrderHost<FreshOnly>
    class Service {
    public:
        explicit Service(Host& host)
            : host_(host) {}

        void start() {}

        void stop() {}

        void after_drain() {}

        // No broker lock to give back: a dropped queue is released at once.
        bool release_queue(const rmq::MessageQueue&, rmq::ProcessQueue&) { return true; }

        // Event loop: cache the messages (the committed offset is computed from the cache), then hand them to
        // the consume pool in batches.
        void on_pulled(const rmq::MessageQueue& mq,
                       const std::shared_ptr<rmq::ProcessQueue>& pq,
                       std::vector<rmq::MessageExt> msgs) {
            (void)pq->put_messages(msgs);
            const auto batch =
                static_cast<std::size_t>(std::max(1, host_.config().consume_message_batch_max_size));
            for (std::size_t i = 0; i < msgs.size(); i += batch) {
                std::vector<rmq::MessageExt> part(
                    msgs.begin() + static_cast<std::ptrdiff_t>(i),
                    msgs.begin() + static_cast<std::ptrdiff_t>(std::min(msgs.size(), i + batch)));
                host_.submit([this, mq, pq, part = std::move(part)] { consume(mq, *pq, part); });
            }
        }

    private:
        // Consume thread.
        void consume(const rmq::MessageQueue& mq,
                     rmq::ProcessQueue& pq,
                     const std::vector<rmq::MessageExt>& msgs) {
            if (pq.dropped()) {
                return;
            }
            std::vector<rmq::MessageExt> fresh;
            for (const auto& msg : msgs) {
                if (!expired(msg)) {
                    fresh.push_back(msg);
                }
            }
            bool ok = true;
            if (!fresh.empty()) {
                Context ctx(mq);
                const auto call = *host_.call_listener(mq, fresh, ctx);  // hooks, timing, exceptions
                ok = call.status == Status::ConsumeSuccess;
                const auto n = static_cast<std::int64_t>(fresh.size());
                host_.record_consume(mq.topic, call.rt_millis, ok ? n : 0, ok ? 0 : n);
            }
            if (!ok && host_.clustering()) {
                for (const auto& msg : fresh) {
                    if (!host_.send_back(msg, 0)) {
                        host_.log("{} could not be sent back; it is redelivered after a restart",
                                  msg.msg_id());
                        return;  // left in the cache: the committed offset stays below it
                    }
                }
            }
            std::vector<std::int64_t> done;
            for (const auto& msg : msgs) {
                done.push_back(msg.queue_offset());
            }
            const std::int64_t offset = pq.remove_messages(done);
            if (offset >= 0 && !pq.dropped()) {
                host_.update_offset(mq, offset, true);
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
    rmq::InProcessBroker broker;
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

    std::atomic<int> consumed{0};
    std::atomic<int> stale{0};
    rmq::Consumer<FreshOnly, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport>
        consumer{broker.connect(),
                 rmq::ConsumerConfig{.consumer_group = "fresh_group",
                                     .consume_from_where = rmq::ConsumeFromWhere::FirstOffset}};
    consumer.subscribe("Prices", "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        for (const auto& msg : msgs) {
            const auto body = msg.body();
            stale += (body.back() - '0') % 2 == 0 ? 1 : 0;
            ++consumed;
        }
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    consumer.start();

    // Wait until both queues are committed up to their ends (10 messages in all, fresh or skipped).
    const auto committed = [&] {
        std::int64_t sum = 0;
        for (const auto& q : consumer.stats().queues) {
            sum += std::max<std::int64_t>(0, q.commit_offset);
        }
        return sum;
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (committed() < 10 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const std::int64_t offsets = committed();
    consumer.shutdown();
    if (consumed != 5 || stale != 0 || offsets != 10) {
        fmt::print("FAILED: {} consumed ({} stale), offsets committed up to {} of 10\n",
                   consumed.load(),
                   stale.load(),
                   offsets);
        return 1;
    }
    fmt::print("5 fresh updates consumed, 5 expired ones skipped; offsets committed up to 10\n");
    return 0;
}
