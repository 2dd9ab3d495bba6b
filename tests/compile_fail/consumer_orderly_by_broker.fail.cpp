// EXPECT: concurrent consumption only
// An orderly consumer with broker-side assignment is rejected at compile time: Java rebalances orderly
// consumers on the client (they lock their queues), and the diagnostic says so.

#include <rmq/allocate/by_broker.hpp>
#include <rmq/consumer.hpp>

int main() {
    rmq::InProcessBroker broker;
    rmq::Consumer<rmq::Orderly, rmq::AllocateByBroker, rmq::RemoteOffsetStore, rmq::InProcessTransport>
        consumer(broker.connect(), rmq::ConsumerConfig{.consumer_group = "g"});
    return 0;
}
