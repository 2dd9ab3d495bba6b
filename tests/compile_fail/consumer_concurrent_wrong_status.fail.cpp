// EXPECT: wrong listener for this order policy
// A concurrent consumer whose listener has the concurrent parameters but answers with an orderly status is
// rejected too: the status type is part of the signature.

#include <span>

#include <rmq/consumer.hpp>

int main() {
    rmq::InProcessBroker broker;
    rmq::PushConsumer<rmq::InProcessTransport> consumer{broker.connect(),
                                                        rmq::ConsumerConfig{.consumer_group = "g"}};
    consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
        return rmq::ConsumeOrderlyStatus::Success;
    });
    return 0;
}
