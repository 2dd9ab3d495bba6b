#pragma once

/// @file detail/consumer/host.hpp
/// rmq::detail::ConsumerHost: the consumer core seen through rmq::OrderHost, the narrow facade an order
/// policy's Service gets (order/host.hpp). Every member forwards to one of the core's boxes (Consumption does
/// most of the work); nothing else of the core is reachable from a Service.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/order/host.hpp>

#include <rmq/detail/consumer/queue_access.hpp>

namespace rmq::detail {

template <class Core>
class ConsumerHost final : public OrderHost<typename Core::order_policy> {
    using Base = OrderHost<typename Core::order_policy>;
    using typename Base::Context;
    using typename Base::Status;

public:
    explicit ConsumerHost(Core& core)
        : core_(core) {}

    [[nodiscard]] const ConsumerConfig& config() const noexcept override { return core_.s_.config; }

    [[nodiscard]] const std::string& group() const noexcept override { return core_.s_.group; }

    [[nodiscard]] const std::string& client_id() const noexcept override { return core_.s_.client_id; }

    [[nodiscard]] bool clustering() const noexcept override { return core_.s_.clustering; }

    [[nodiscard]] int max_reconsume_times() const noexcept override { return core_.s_.max_reconsume_times; }

    [[nodiscard]] const std::shared_ptr<Clock>& clock() const noexcept override { return core_.s_.clock; }

    [[nodiscard]] bool stopping() const noexcept override { return core_.s_.stopping.load(); }

    void submit(std::function<void()> task) override { core_.s_.submit(std::move(task)); }

    void submit_each(std::size_t count, std::function<void(std::size_t)> call) override {
        core_.s_.submit_each(count, std::move(call));
    }

    void schedule(std::int64_t delay_millis, std::function<void()> fn) override {
        core_.s_.schedule(delay_millis, std::move(fn));
    }

    [[nodiscard]] std::vector<ConsumeQueue> queues() const override {
        std::vector<ConsumeQueue> out;
        for (const auto& [mq, pq] : core_.s_.table_snapshot()) {
            out.push_back(QueueAccess::queue(mq, pq));
        }
        return out;
    }

    std::optional<ListenerCall<Status>>
    consume(const ConsumeQueue& q, MessageBatch& batch, Context& ctx) override {
        return core_.consumption_.consume(q, QueueAccess::span(batch), ctx, QueueAccess::unstamped(batch));
    }

    std::optional<ListenerCall<Status>>
    consume(const ConsumeQueue& q, std::span<MessageExt> msgs, Context& ctx) override {
        return core_.consumption_.consume(q, msgs, ctx, std::nullopt);
    }

    void settle(const ConsumeQueue& q, MessageBatch batch, std::size_t acked, int delay_level) override {
        core_.consumption_.settle(q, std::move(batch), acked, delay_level);
    }

    void ack(const ConsumeQueue& q, std::span<const std::int64_t> offsets) override {
        core_.consumption_.ack(q, offsets);
    }

    std::vector<MessageExt> take(const ConsumeQueue& q, std::size_t max) override {
        return QueueAccess::cache(q).take_messages(max);
    }

    void commit_taken(const ConsumeQueue& q) override { core_.consumption_.commit_taken(q); }

    void rollback_taken(const ConsumeQueue& q) override { QueueAccess::cache(q).rollback(); }

    void consume_again(const ConsumeQueue& q, std::span<const MessageExt> msgs) override {
        QueueAccess::cache(q).make_message_to_consume_again(msgs);
    }

    bool send_back(const MessageExt& msg, int delay_level) override {
        return core_.sender_.send_back(msg, delay_level);
    }

    bool send_to_dlq(const MessageExt& msg) override { return core_.sender_.send_to_dlq(msg); }

    bool lock_queue(const ConsumeQueue& q) override {
        return !q.dropped() && core_.locker_.lock_queue(q.mq());
    }

    void record_outcome(std::string_view topic, std::int64_t ok, std::int64_t failed) override {
        core_.consumption_.record_outcome(topic, ok, failed);
    }

private:
    Core& core_;
};

}  // namespace rmq::detail
