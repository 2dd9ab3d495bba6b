// EXPECT: Service has no on_messages
// A custom order policy whose Service lacks on_messages must not compile, and the diagnostic names the
// missing member.

#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include <rmq/consumer.hpp>

struct Policy {
    using Context = rmq::ConsumeConcurrentlyContext;
    using Status = rmq::ConsumeConcurrentlyStatus;
    using Listener = std::function<std::optional<Status>(std::span<const rmq::MessageExt>, Context&)>;
    static constexpr std::string_view listener_signature = "(span, ConsumeConcurrentlyContext&) -> status";
    static constexpr Status failure_status = Status::ReconsumeLater;

    static constexpr bool is_success(Status s) noexcept { return s == Status::ConsumeSuccess; }

    static constexpr bool requires_queue_lock = false;
    static constexpr bool span_flow_control = true;
    static constexpr bool unlimited_retries_by_default = false;

    template <class Host>
    class Service {
    public:
        explicit Service(Host&) {}

        // on_messages is missing.
        void on_message(const rmq::ConsumeQueue&, const rmq::MessageBatch&) {}
    };
};

int main() {
    rmq::InProcessBroker broker;
    rmq::Consumer<Policy, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport> consumer{
        broker.connect(), rmq::ConsumerConfig{.consumer_group = "g"}};
    return consumer.running() ? 1 : 0;
}
