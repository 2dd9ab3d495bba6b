// EXPECT: HasPop
// A transport that routes but cannot pop is rejected by rmq::SimpleConsumer, and the diagnostic names HasPop.

#include <string>

#include <rmq/simple_consumer.hpp>

namespace {

struct RouteOnly {
    rmq::TopicRoute topic_route(const std::string& /*topic*/) { return {}; }
};

}  // namespace

int main() {
    rmq::SimpleConsumer<RouteOnly> consumer(RouteOnly{}, rmq::SimpleConsumerConfig{.consumer_group = "g"});
    return 0;
}
