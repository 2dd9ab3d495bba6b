// Uses rmq through the umbrella header only, as a user of the single header would.
#include <cstdio>

#include <fmt/format.h>

#include <rmq/rmq.hpp>

int main() {
    const rmq::MessageQueue mq{"TopicTest", "broker-a", 3};
    const std::string text = fmt::format("{}", mq);
    if (text != "MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=3]") {
        std::fprintf(stderr, "unexpected: %s\n", text.c_str());
        return 1;
    }
    fmt::print("rmq_downstream OK ({}) rmq {}.{}.{}\n",
               RMQ_DOWNSTREAM_MODE,
               RMQ_VERSION_MAJOR,
               RMQ_VERSION_MINOR,
               RMQ_VERSION_PATCH);
    return 0;
}
