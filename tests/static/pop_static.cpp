// Compile-time facts about POP: which transports have it, and what rmq::SimpleConsumer accepts.

#include <string>

#include <catch2/catch.hpp>

#include <rmq/simple_consumer.hpp>
#include <rmq/transport/in_process.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

/// Pops, but cannot change the invisible time: not HasPop.
struct PopWithoutChange {
    rmq::PopResult pop_message(const rmq::PopArgs& /*a*/) { return {}; }

    void ack_message(const rmq::AckArgs& /*a*/) {}
};

}  // namespace

TEST_CASE("both transports have POP", "[static][pop]") {
    STATIC_REQUIRE(rmq::HasPop<rmq::InProcessTransport>);
    STATIC_REQUIRE(rmq::HasPop<rmq::RemotingTransport>);
    STATIC_REQUIRE_FALSE(rmq::HasPop<PopWithoutChange>);
    STATIC_REQUIRE(std::is_constructible_v<rmq::SimpleConsumer<rmq::InProcessTransport>,
                                           rmq::InProcessTransport,
                                           rmq::SimpleConsumerConfig>);
    STATIC_REQUIRE(rmq::SimpleConsumer<rmq::RemotingTransport>::max_receive_messages == 32);
}
