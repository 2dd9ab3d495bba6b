// rmq Producer<RemotingTransport> against Apache RocketMQ 5.3.3: sends that name their queue.

#include <string>

#include "cluster.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <rmq/producer.hpp>
#include <rmq/transport/remoting.hpp>

TEST_CASE("a fresh producer's first call send(msg, mq) looks the topic's route up itself",
          "[realcluster][producer]") {
    const std::string topic = rmq_rc::unique("RcSendMq");
    rmq_rc::create_topic(topic, 4);
    // A transport of its own: no route of any topic cached, nothing looked up before the send.
    rmq::Producer<rmq::RemotingTransport> producer(
        rmq::RemotingTransport{rmq_rc::config()},
        rmq::ProducerConfig{.producer_group = rmq_rc::unique("pg")});
    producer.start();
    for (const auto* broker : {"broker-b", "broker-a"}) {
        const rmq::MessageQueue mq{topic, broker, 2};
        INFO(broker);
        const auto r = producer.send(rmq::Message(topic, "TagA", fmt::format("to {}", broker)), mq);
        CHECK(r.status == rmq::SendStatus::SendOk);
        CHECK(r.message_queue == mq);
    }
    // A broker no route names still fails, naming it.
    CHECK_THROWS_WITH(
        producer.send(rmq::Message(topic, "TagA", "x"), rmq::MessageQueue{topic, "broker-zz", 0}),
        Catch::Contains("broker-zz"));
    producer.shutdown();
}
