// EXPECT: wrong listener for this order policy
// An orderly consumer given a concurrent listener must not compile, and the diagnostic names the expected
// signature.

#include <span>

#include <rmq/consumer.hpp>

int main() {
    rmq::InProcessBroker broker;
    rmq::OrderlyConsumer<rmq::InProcessTransport> consumer{broker.connect(),
                                                           rmq::ConsumerConfig{.consumer_group = "g"}};
    consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    return 0;
}
