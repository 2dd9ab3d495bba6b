// Sends messages to a real Apache RocketMQ cluster through rmq::RemotingTransport.
//
//   rmq_example_remote_producer NAMESRV TOPIC [COUNT] [TAG]
//   e.g. rmq_example_remote_producer 127.0.0.1:9876 TopicTest 100 TagA
//
// TLS and ACL come from the environment: see remote_config.hpp.
//
// Without arguments it prints this usage and exits (the example runner runs every example).

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "remote_config.hpp"

#include <fmt/format.h>

#include <rmq/producer.hpp>
#include <rmq/transport/remoting.hpp>

int main(int argc, char** argv) {
    if (argc < 3) {
        fmt::print("usage: {} NAMESRV TOPIC [COUNT] [TAG]   (e.g. 127.0.0.1:9876 TopicTest 100 TagA)\n",
                   argc > 0 ? argv[0] : "remote_producer");
        return argc == 1 ? 0 : 2;
    }
    try {
        const std::string topic = argv[2];
        const int count = argc > 3 ? std::stoi(argv[3]) : 10;
        const std::string tag = argc > 4 ? argv[4] : "TagA";
        const rmq::RemotingConfig config = remote_example::config(argv[1]);
        rmq::Producer<rmq::RemotingTransport> producer{
            rmq::RemotingTransport{config}, rmq::ProducerConfig{.producer_group = "remote_producer_group"}};
        producer.start();
        const auto begin = std::chrono::steady_clock::now();
        for (int i = 0; i < count; ++i) {
            rmq::Message msg(topic, tag, fmt::format("key-{}", i), fmt::format("Hello RocketMQ {}", i));
            const auto r = producer.send(msg);
            fmt::print("sent {} to {} offset {} (offset msg id {})\n",
                       r.msg_id,
                       r.message_queue,
                       r.queue_offset,
                       r.offset_msg_id);
        }
        const auto ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - begin)
                .count();
        producer.shutdown();
        fmt::print("{} messages sent in {} ms\n", count, ms);
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "remote_producer: {}\n", e.what());
        return 1;
    }
}
