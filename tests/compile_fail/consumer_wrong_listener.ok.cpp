// Positive twin of consumer_wrong_listener.fail.cpp: the same skeleton with the listener the policy expects.

#include <span>

#include <rmq/consumer.hpp>

int main() {
    rmq::InProcessBroker broker;
    rmq::OrderlyConsumer<rmq::InProcessTransport> consumer{broker.connect(),
                                                           rmq::ConsumerConfig{.consumer_group = "g"}};
    consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeOrderlyContext&) {
        return rmq::ConsumeOrderlyStatus::Success;
    });
    return 0;
}
