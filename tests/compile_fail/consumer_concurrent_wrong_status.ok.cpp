// Positive twin of consumer_concurrent_wrong_status.fail.cpp.

#include <span>

#include <rmq/consumer.hpp>

int main() {
    rmq::InProcessBroker broker;
    rmq::PushConsumer<rmq::InProcessTransport> consumer{broker.connect(),
                                                        rmq::ConsumerConfig{.consumer_group = "g"}};
    consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    return 0;
}
