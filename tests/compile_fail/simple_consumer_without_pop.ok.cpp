// Positive twin of simple_consumer_without_pop.fail.cpp: the same transport with the POP requests compiles.

#include <string>

#include <rmq/simple_consumer.hpp>

namespace {

struct RouteAndPop {
    rmq::TopicRoute topic_route(const std::string& /*topic*/) { return {}; }

    rmq::PopResult pop_message(const rmq::PopArgs& /*a*/) { return {}; }

    void ack_message(const rmq::AckArgs& /*a*/) {}

    std::string change_invisible_time(const rmq::ChangeInvisibleTimeArgs& /*a*/) { return {}; }
};

}  // namespace

int main() {
    rmq::SimpleConsumer<RouteAndPop> consumer(RouteAndPop{},
                                              rmq::SimpleConsumerConfig{.consumer_group = "g"});
    return 0;
}
