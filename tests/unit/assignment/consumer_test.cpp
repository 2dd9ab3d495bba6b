// rmq::AllocateByBroker inside real push consumers on the embedded broker: the members own what the broker
// assigns them (no queue twice, none left out), follow membership changes, keep their queues while the
// query fails, consume the queues assigned in POP mode by POP (or report them once when the consumer cannot),
// and refuse broadcasting.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <consumer_fixture.hpp>
#include <forwarding_transport.hpp>

#include <catch2/catch.hpp>

#include <rmq/allocate/by_broker.hpp>
#include <rmq/assignment.hpp>
#include <rmq/consumer.hpp>
#include <rmq/log.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/transport/in_process.hpp>

namespace assignment_consumer_test {

namespace {

constexpr const char* topic = "ByBrokerTopic";
constexpr const char* group = "by_broker_group";
constexpr int queue_count = 8;

/// The embedded broker, counting this member's QUERY_ASSIGNMENT requests (answered or failed).
class CountingTransport : public rmq_test::ForwardingTransport {
public:
    explicit CountingTransport(rmq::InProcessTransport inner)
        : ForwardingTransport(std::move(inner)) {}

    std::optional<std::vector<rmq::MessageQueueAssignment>>
    query_assignment(const rmq::QueryAssignmentArgs& a) {
        queries_->fetch_add(1);
        return inner_.query_assignment(a);
    }

    void set_message_request_mode(const rmq::SetMessageRequestModeArgs& a) {
        inner_.set_message_request_mode(a);
    }

    [[nodiscard]] int queries() const { return queries_->load(); }

private:
    std::shared_ptr<std::atomic<int>> queries_ = std::make_shared<std::atomic<int>>(0);
};

using Member =
    rmq::Consumer<rmq::Concurrently, rmq::AllocateByBroker, rmq::RemoteOffsetStore, CountingTransport>;

struct Group {
    rmq::InProcessBroker& broker;
    consumer_fixture::BasicRecorder<60> rec;
    std::set<std::string> seen;
    std::vector<std::unique_ptr<Member>> members;
    std::vector<CountingTransport> transports;

    Member& add() {
        transports.emplace_back(broker.connect());
        members.push_back(
            std::make_unique<Member>(transports.back(), consumer_fixture::fast_config(group, 10000)));
        auto& m = *members.back();
        m.subscribe(topic, "*");
        m.register_listener([this](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
            rec.update([&] {
                for (const auto& msg : msgs) {
                    seen.insert(msg.body());
                }
            });
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
        m.start();
        return m;
    }
};

std::set<rmq::MessageQueue> owned(const Member& c) {
    std::set<rmq::MessageQueue> out;
    for (const auto& mq : c.assigned_queues()) {
        if (mq.topic == topic) {
            out.insert(mq);
        }
    }
    return out;
}

/// Every queue of the topic owned by exactly one member, each member owning `per_member` (or more) queues.
bool split_exactly(const std::vector<std::unique_ptr<Member>>& members, std::size_t per_member) {
    std::multiset<rmq::MessageQueue> all;
    for (const auto& m : members) {
        const auto mine = owned(*m);
        if (mine.size() < per_member) {
            return false;
        }
        all.insert(mine.begin(), mine.end());
    }
    return all.size() == queue_count &&
           std::set<rmq::MessageQueue>(all.begin(), all.end()).size() == queue_count;
}

void produce(rmq::InProcessBroker& broker, int from, int to) {
    auto tr = broker.connect();
    for (int i = from; i < to; ++i) {
        (void)tr.send(rmq::Message(topic, "TagA", "m" + std::to_string(i)),
                      broker.queue(topic, i % queue_count));
    }
}

bool members_seen(rmq::InProcessBroker& broker, std::size_t n) {
    return consumer_fixture::eventually([&] { return broker.group_members(group).size() == n; },
                                        std::chrono::seconds(30));
}

}  // namespace

TEST_CASE("members under AllocateByBroker split a topic without overlap or gap and follow membership",
          "[assignment][consumer]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, queue_count);
    Group g{broker, {}, {}, {}, {}};
    g.members.reserve(3);
    g.transports.reserve(3);
    for (int i = 0; i < 3; ++i) {
        g.add();
    }
    REQUIRE(
        consumer_fixture::eventually([&] { return split_exactly(g.members, 2); }, std::chrono::seconds(60)));
    produce(broker, 0, 120);
    REQUIRE(g.rec.wait([&] { return g.seen.size() == 120; }));

    g.members.front()->shutdown();
    g.members.erase(g.members.begin());
    REQUIRE(consumer_fixture::eventually([&] { return split_exactly(g.members, queue_count / 2); },
                                         std::chrono::seconds(60)));
    produce(broker, 120, 180);
    REQUIRE(g.rec.wait([&] { return g.seen.size() == 180; }));
    for (const auto& m : g.members) {
        m->shutdown();
    }
}

TEST_CASE("a failed QUERY_ASSIGNMENT keeps the current queues", "[assignment][consumer]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, queue_count);
    Group g{broker, {}, {}, {}, {}};
    g.members.reserve(2);
    g.transports.reserve(2);
    auto& first = g.add();
    REQUIRE(consumer_fixture::eventually([&] { return owned(first).size() == queue_count; },
                                         std::chrono::seconds(30)));

    broker.inject_failure(rmq::BrokerRequest::QueryAssignment, rmq::response_code::system_error, 1000000);
    auto& second = g.add();
    REQUIRE(members_seen(broker, 2));
    // Several rebalances of the first member failed since the second joined: it still owns everything.
    const int before = g.transports[0].queries();
    REQUIRE(consumer_fixture::eventually([&] { return g.transports[0].queries() >= before + 5; },
                                         std::chrono::seconds(30)));
    CHECK(owned(first).size() == queue_count);
    CHECK(owned(second).empty());

    broker.inject_failure(rmq::BrokerRequest::QueryAssignment, 0, 0);  // the broker answers again
    REQUIRE(consumer_fixture::eventually([&] { return split_exactly(g.members, queue_count / 2); },
                                         std::chrono::seconds(60)));
    for (const auto& m : g.members) {
        m->shutdown();
    }
}

TEST_CASE("POP assignments to a consumer that cannot pop are reported once and nothing consumes them",
          "[assignment][consumer]") {
    rmq::InProcessBroker broker;
    broker.create_topic(topic, queue_count);
    broker.connect().set_message_request_mode(
        rmq::SetMessageRequestModeArgs{.topic = topic,
                                       .consumer_group = group,
                                       .mode = rmq::MessageRequestMode::Pop,
                                       .pop_share_queue_num = 0});
    std::mutex mutex;
    int reports = 0;
    const auto previous = rmq::set_log_handler([&](rmq::LogLevel level, std::string_view line) {
        if (level == rmq::LogLevel::Error && line.find("in POP mode") != std::string_view::npos &&
            line.find(topic) != std::string_view::npos) {
            const std::lock_guard lock(mutex);
            ++reports;
        }
    });
    Group g{broker, {}, {}, {}, {}};
    g.members.reserve(1);
    g.transports.reserve(1);
    auto& member = g.add();
    REQUIRE(consumer_fixture::eventually([&] { return g.transports[0].queries() >= 10; },
                                         std::chrono::seconds(30)));
    CHECK(owned(member).empty());
    member.shutdown();
    rmq::set_log_handler(previous);
    const std::lock_guard lock(mutex);
    CHECK(reports == 1);
}

TEST_CASE("queues the broker assigns in POP mode are consumed by POP, every message acked once",
          "[assignment][consumer][pop]") {
    using PopMember = rmq::
        Consumer<rmq::Concurrently, rmq::AllocateByBroker, rmq::RemoteOffsetStore, rmq::InProcessTransport>;
    rmq::InProcessBroker broker;
    broker.create_topic(topic, queue_count);
    broker.connect().set_message_request_mode(
        rmq::SetMessageRequestModeArgs{.topic = topic,
                                       .consumer_group = group,
                                       .mode = rmq::MessageRequestMode::Pop,
                                       .pop_share_queue_num = 0});
    consumer_fixture::BasicRecorder<60> rec;
    std::vector<std::string> seen;
    std::vector<std::unique_ptr<PopMember>> members;
    for (int i = 0; i < 2; ++i) {
        members.push_back(
            std::make_unique<PopMember>(broker.connect(), consumer_fixture::fast_config(group, 1000)));
        members.back()->subscribe(topic, "*");
        members.back()->register_listener(
            [&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
                rec.update([&] {
                    for (const auto& msg : msgs) {
                        seen.push_back(msg.body());
                    }
                });
                return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        members.back()->start();
    }
    // popShareQueueNum 0: each member pops the broker's queue id -1, no PULL queue is owned.
    REQUIRE(consumer_fixture::eventually(
        [&] {
            return std::all_of(members.begin(), members.end(), [](const auto& m) {
                const auto queues = m->assigned_queues();
                return std::any_of(queues.begin(), queues.end(), [](const rmq::MessageQueue& mq) {
                    return mq.topic == topic && mq.queue_id == -1;
                });
            });
        },
        std::chrono::seconds(30)));
    produce(broker, 0, 40);
    REQUIRE(rec.wait([&] { return seen.size() >= 40; }));
    REQUIRE(consumer_fixture::eventually([&] { return broker.pop_in_flight(group) == 0; },
                                         std::chrono::seconds(30)));
    for (const auto& m : members) {
        m->shutdown();
    }
    auto all = rec.read([&] { return seen; });
    std::sort(all.begin(), all.end());
    CHECK(all.size() == 40);
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());  // each once
}

TEST_CASE("AllocateByBroker refuses broadcasting at construction", "[assignment][consumer]") {
    rmq::InProcessBroker broker;
    auto config = consumer_fixture::fast_config(group, 1000);
    config.message_model = rmq::MessageModel::Broadcasting;
    CHECK_THROWS_WITH(Member(CountingTransport(broker.connect()), config),
                      Catch::Contains("clustering") && Catch::Contains("BrokerAllocatePolicy"));
}

}  // namespace assignment_consumer_test
