// Positive twin of consumer_orderly_by_broker.fail.cpp: broker-side assignment with rmq::Concurrently
// compiles.

#include <rmq/allocate/by_broker.hpp>
#include <rmq/consumer.hpp>

int main() {
    rmq::InProcessBroker broker;
    rmq::Consumer<rmq::Concurrently, rmq::AllocateByBroker, rmq::RemoteOffsetStore, rmq::InProcessTransport>
        consumer(broker.connect(), rmq::ConsumerConfig{.consumer_group = "g"});
    return 0;
}
