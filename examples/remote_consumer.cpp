// Consumes a topic from a real Apache RocketMQ cluster through rmq::RemotingTransport, printing every message
// and a TPS line every second.
//
//   rmq_example_remote_consumer NAMESRV GROUP TOPIC [EXPRESSION] [SECONDS]
//   e.g. rmq_example_remote_consumer 127.0.0.1:9876 my_group TopicTest "TagA || TagB" 30
//
// TLS and ACL come from the environment: see remote_config.hpp.
//
// Without arguments it prints this usage and exits (the example runner runs every example).

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <span>
#include <string>
#include <thread>

#include "remote_config.hpp"

#include <fmt/format.h>

#include <rmq/consumer.hpp>
#include <rmq/transport/remoting.hpp>

int main(int argc, char** argv) {
    if (argc < 4) {
        fmt::print(
            "usage: {} NAMESRV GROUP TOPIC [EXPRESSION] [SECONDS]   (e.g. 127.0.0.1:9876 my_group TopicTest "
            "\"*\" 30; SECONDS 0 = until killed)\n",
            argc > 0 ? argv[0] : "remote_consumer");
        return argc == 1 ? 0 : 2;
    }
    try {
        const std::string expression = argc > 4 ? argv[4] : "*";
        const int seconds = argc > 5 ? std::stoi(argv[5]) : 0;
        const rmq::RemotingConfig config = remote_example::config(argv[1]);
        rmq::ConsumerConfig cc{.consumer_group = argv[2],
                               .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
        rmq::PushConsumer<rmq::RemotingTransport> consumer{rmq::RemotingTransport{config}, cc};
        consumer.subscribe(argv[3], expression);
        std::atomic<long> consumed{0};
        consumer.register_listener(
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                for (const auto& m : msgs) {
                    fmt::print("{} {} queue {}@{} offset {} tags {} keys {} body {}\n",
                               m.msg_id(),
                               m.topic(),
                               m.queue_id(),
                               m.broker_name(),
                               m.queue_offset(),
                               m.tags(),
                               m.keys(),
                               m.body().size() > 64 ? fmt::format("({} bytes)", m.body().size()) : m.body());
                }
                consumed.fetch_add(static_cast<long>(msgs.size()));
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        consumer.start();
        long last = 0;
        for (int s = 1; seconds == 0 || s <= seconds; ++s) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            const long now = consumed.load();
            fmt::print("TPS {} (total {})\n", now - last, now);
            std::fflush(stdout);
            last = now;
        }
        consumer.shutdown();
        fmt::print("consumed {} messages\n", consumed.load());
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "remote_consumer: {}\n", e.what());
        return 1;
    }
}
