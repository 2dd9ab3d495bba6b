// EXPECT: WrongListener<Verdicts, rmq::detail::Text<[0-9]+>.*Verdicts::Context.. -> bool
// WrongListener<.*Verdicts.*\(std::span<const rmq::MessageExt>, Verdicts::Context&\) -> bool. -> bool A
// user's order policy given a listener of another kind must not compile, and the diagnostic names that policy
// and quotes its listener_signature (not only the stock policies').

#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include <rmq/consumer.hpp>

struct Verdicts {
    struct Context {
        explicit Context(const rmq::MessageQueue&) {}
    };

    using Status = bool;
    using Listener = std::function<std::optional<Status>(std::span<const rmq::MessageExt>, Context&)>;
    static constexpr std::string_view listener_signature =
        "(std::span<const rmq::MessageExt>, Verdicts::Context&) -> bool";
    static constexpr Status failure_status = false;

    static constexpr bool is_success(Status s) noexcept { return s; }

    static constexpr bool requires_queue_lock = false;
    static constexpr bool span_flow_control = true;
    static constexpr bool unlimited_retries_by_default = false;

    template <class Host>
    class Service {
    public:
        explicit Service(Host&) {}

        void on_messages(const rmq::ConsumeQueue&, const rmq::MessageBatch&) {}
    };
};

int main() {
    rmq::InProcessBroker broker;
    rmq::Consumer<Verdicts, rmq::AllocateAveragely, rmq::RemoteOffsetStore, rmq::InProcessTransport> consumer{
        broker.connect(), rmq::ConsumerConfig{.consumer_group = "g"}};
    consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    return 0;
}
