#pragma once

/// @file detail/consumer/host.hpp
/// rmq::detail::ConsumerHost: the consumer core seen through rmq::OrderHost, the narrow facade an order
/// policy's Service gets (order/host.hpp). Every member forwards to the core; nothing else of the core is
/// reachable from a Service.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rmq/concepts/transport.hpp>
#include <rmq/order/host.hpp>

namespace rmq::detail {

template <class Core>
class ConsumerHost final : public OrderHost<typename Core::order_policy> {
    using Base = OrderHost<typename Core::order_policy>;

public:
    explicit ConsumerHost(Core& core)
        : core_(core) {}

    [[nodiscard]] const ConsumerConfig& config() const noexcept override { return core_.config_; }

    [[nodiscard]] const std::string& group() const noexcept override { return core_.group_; }

    [[nodiscard]] const std::string& client_id() const noexcept override { return core_.client_id_; }

    [[nodiscard]] bool clustering() const noexcept override { return core_.clustering_; }

    [[nodiscard]] int max_reconsume_times() const noexcept override { return core_.max_reconsume_times_; }

    [[nodiscard]] const std::shared_ptr<Clock>& clock() const noexcept override { return core_.clock_; }

    [[nodiscard]] bool stopping() const noexcept override { return core_.stopping_.load(); }

    [[nodiscard]] bool pulls_complete_on_loop() const noexcept override {
        return HasPullPostingToCaller<decltype(core_.transport_)>;
    }

    void submit(std::function<void()> task) override { core_.submit(std::move(task)); }

    void schedule(std::int64_t delay_millis, std::function<void()> fn) override {
        core_.schedule(delay_millis, std::move(fn));
    }

    [[nodiscard]] std::vector<typename Base::QueueEntry> owned_queues() const override {
        return core_.table_snapshot();
    }

    void update_offset(const MessageQueue& mq, std::int64_t offset, bool increase_only) override {
        core_.offset_store_.update_offset(mq, offset, increase_only);
    }

    bool send_back(const MessageExt& msg, int delay_level) override {
        return core_.send_back(msg, delay_level);
    }

    bool send_to_dlq(const MessageExt& msg) override { return core_.send_to_dlq(msg); }

    bool lock_queue(const MessageQueue& mq) override { return core_.lock_queue(mq); }

    void unlock_queues(const std::vector<MessageQueue>& mqs) override { core_.unlock_queues(mqs); }

    void lock_all() override { core_.lock_all(); }

    void unlock_all() override { core_.unlock_all(); }

    void record_consume(std::string_view topic,
                        std::int64_t millis,
                        std::int64_t ok,
                        std::int64_t failed) override {
        core_.stats_.record_consume(topic, millis, ok, failed);
    }

    void record_consume_rt(std::string_view topic, std::int64_t millis) override {
        core_.stats_.record_consume_rt(topic, millis);
    }

    void record_consume_ok(std::string_view topic, std::int64_t count) override {
        core_.stats_.record_consume_ok(topic, count);
    }

    void record_consume_failed(std::string_view topic, std::int64_t count) override {
        core_.stats_.record_consume_failed(topic, count);
    }

protected:
    [[nodiscard]] const typename Base::Listener& listener() const noexcept override {
        return core_.listener_;
    }

    [[nodiscard]] const ConsumeHooks& hooks() const noexcept override { return core_.hooks_; }

private:
    Core& core_;
};

}  // namespace rmq::detail
