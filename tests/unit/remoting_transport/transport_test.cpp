// rmq::RemotingTransport against fake NameServer/Broker servers: route lookup and caching, heartbeats, pulls
// (status mapping, suggested broker, commit bit on slaves), sends (UNIQ_KEY, zlib, SYSTEM_BUSY retry), locks
// per broker, broker-initiated requests.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
// GCC's -Wtsan flags the std::atomic_thread_fence in Boost.Asio's handler fences under -fsanitize=thread; it
// must be silenced before <atomic> is first included (the diagnostic is tied to that header's location).
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fake_server.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <rmq/concepts/transport.hpp>
#include <rmq/remoting/bodies.hpp>
#include <rmq/remoting/compression.hpp>
#include <rmq/remoting/headers.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;

static_assert(rmq::Transport<rmq::RemotingTransport>);
static_assert(std::is_move_constructible_v<rmq::RemotingTransport>);

using rmq_test::route_json;

rmq::RemotingConfig config_for(const rmq_test::FakeServer& namesrv) {
    rmq::RemotingConfig c;
    c.namesrv_addr = namesrv.address();
    return c;
}

Command ok(const Command& req) {
    return rmq_test::FakeSession::response_to(req, 0);
}

/// SUCCESS with `body` (a route, for the NameServer's answers).
Command ok(const Command& req, std::string body) {
    auto r = ok(req);
    r.body = std::move(body);
    return r;
}

std::string record(const std::string& topic, int queue_id, std::int64_t offset, const std::string& body) {
    rmq::MessageExt m;
    m.set_topic(topic);
    m.set_body(body);
    m.set_queue_id(queue_id);
    m.set_queue_offset(offset);
    m.set_commit_log_offset(1000 + offset);
    m.set_born_host("127.0.0.1:1234");
    m.set_store_host("127.0.0.1:10911");
    m.set_born_timestamp(1700000000000);
    m.set_store_timestamp(1700000000005);
    m.set_tags("TagA");
    m.set_property("UNIQ_KEY", "7F00000130392A2B3C4D00001234000" + std::to_string(offset % 10));
    m.set_body_crc(rmq::remoting::crc32(body));
    return rmq::remoting::encode_message(m);
}

/// A PULL_MESSAGE answer with `code`, the suggested broker id, offsets 0..next and `body` (the records of
/// FOUND).
Command
pull_answer(const Command& req, int code, std::int64_t suggest, std::int64_t next, std::string body = {}) {
    auto r = rmq_test::FakeSession::response_to(req, code);
    r.fields().set("suggestWhichBrokerId", std::to_string(suggest));
    r.fields().set("nextBeginOffset", std::to_string(next));
    r.fields().set("minOffset", "0");
    r.fields().set("maxOffset", std::to_string(next));
    r.body = std::move(body);
    return r;
}

}  // namespace

TEST_CASE("topic_route asks the NameServer once and builds read and write queues", "[remoting_transport]") {
    rmq_test::FakeServer server;
    server.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        if (req.code == rc::get_routeinfo_by_topic) {
            if (req.field("topic") == "Missing") {
                auto r = rmq_test::FakeSession::response_to(req, 17);
                r.remark = "No topic route info in name server for the topic: Missing";
                s.send(r);
                return;
            }
            auto r = ok(req);
            r.body = route_json(server.address());
            s.send(r);
        }
    });
    rmq::RemotingTransport transport{config_for(server)};
    const auto route = transport.topic_route("TopicTest");
    REQUIRE(route.read_queues.size() == 4);
    CHECK(route.read_queues[3] == rmq::MessageQueue{"TopicTest", "broker-a", 3});
    CHECK(route.write_queues.size() == 4);
    (void)transport.topic_route("TopicTest");
    const auto got = server.received();
    REQUIRE(got.size() == 1);  // cached
    CHECK(got[0].field("acceptStandardJsonOnly") == "true");
    CHECK(transport.master_address("broker-a") == server.address());
    try {
        (void)transport.topic_route("Missing");
        FAIL("expected TOPIC_NOT_EXIST");
    } catch (const rmq::BrokerError& e) {
        CHECK(e.code() == rmq::response_code::topic_not_exist);
    }
}

TEST_CASE("the NameServer list is tried in turn", "[remoting_transport]") {
    rmq_test::FakeServer server;
    server.set_handler(
        [&](rmq_test::FakeSession& s, const Command& req) { s.send(ok(req, route_json(server.address()))); });
    auto dead = std::make_unique<rmq_test::FakeServer>();
    const std::string dead_addr = dead->address();
    dead.reset();
    rmq::RemotingConfig c = config_for(server);
    c.namesrv_addr = dead_addr + ";" + server.address();
    rmq::RemotingTransport transport{c};
    for (int i = 0; i < 3; ++i) {
        transport.invalidate_route("T");
        CHECK(transport.topic_route("T").read_queues.size() == 4);
    }
    CHECK_THROWS_AS(rmq::RemotingTransport{rmq::RemotingConfig{}}, rmq::InvalidArgument);
    rmq::RemotingConfig bad;
    bad.namesrv_addr = "nohost";
    CHECK_THROWS_AS(rmq::RemotingTransport{bad}, rmq::InvalidArgument);
    rmq::RemotingConfig no_oneway = c;
    no_oneway.client_oneway_semaphore_value = 0;
    CHECK_THROWS_WITH(rmq::RemotingTransport{no_oneway}, Catch::Contains("client_oneway_semaphore_value"));
}

TEST_CASE("heartbeat looks up the subscribed routes and reaches every broker, a reconnect repeats it",
          "[remoting_transport]") {
    rmq_test::FakeServer broker;
    rmq_test::FakeServer namesrv;
    broker.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        if (req.code == rc::pull_message) {
            s.close_now();
            return;
        }
        s.send(ok(req));
    });
    namesrv.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        if (req.field("topic") == "%RETRY%cg") {
            s.send(rmq_test::FakeSession::response_to(req, 17));
            return;
        }
        auto r = ok(req);
        r.body = route_json(broker.address());
        s.send(r);
    });
    rmq::RemotingTransport transport{config_for(namesrv)};
    rmq::HeartbeatData hb;
    hb.client_id = "127.0.0.1@1#1";
    rmq::ConsumerData cd;
    cd.group_name = "cg";
    cd.subscription_data_set.push_back(rmq::parse_subscription("TopicTest", "*"));
    cd.subscription_data_set.push_back(rmq::parse_subscription("%RETRY%cg", "*"));
    hb.consumer_data_set.push_back(cd);
    transport.heartbeat(hb);
    auto got = broker.received();
    REQUIRE(got.size() == 1);
    CHECK(got[0].code == rc::heart_beat);
    const auto decoded = rmq::remoting::decode_heartbeat_data(got[0].body);
    CHECK(decoded.client_id == "127.0.0.1@1#1");
    REQUIRE(decoded.consumer_data_set.size() == 1);
    CHECK(decoded.consumer_data_set[0].group_name == "cg");

    // the broker drops the connection; the next request is preceded by the heartbeat on the new one
    std::promise<rmq::Outcome<rmq::PullResult>> p;
    rmq::PullArgs args;
    args.consumer_group = "cg";
    args.mq = rmq::MessageQueue{"TopicTest", "broker-a", 0};
    transport.pull(args, [&](rmq::Outcome<rmq::PullResult> o) { p.set_value(std::move(o)); });
    auto f = p.get_future();
    REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    CHECK_FALSE(f.get().ok());
    CHECK(transport.max_offset(args.mq) == 0);
    got = broker.received();
    REQUIRE(got.size() == 4);
    CHECK(got[1].code == rc::pull_message);
    CHECK(got[2].code == rc::heart_beat);
    CHECK(got[3].code == rc::get_max_offset);

    transport.unregister_client("127.0.0.1@1#1", "", "cg");
    got = broker.received();
    REQUIRE(got.size() == 5);
    CHECK(got[4].code == rc::unregister_client);
    CHECK(got[4].field("clientID") == "127.0.0.1@1#1");
    CHECK(got[4].field("consumerGroup") == "cg");
    CHECK_FALSE(got[4].ext_fields->contains("producerGroup"));
}

TEST_CASE("pull maps response codes, decodes records and follows the suggested broker",
          "[remoting_transport]") {
    rmq_test::FakeServer master;
    rmq_test::FakeServer slave;
    rmq_test::FakeServer namesrv;
    namesrv.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        s.send(ok(req, route_json(master.address(), slave.address())));
    });
    auto pull_handler = [](int code, std::int64_t suggest) {
        return [code, suggest](rmq_test::FakeSession& s, const Command& req) {
            s.send(pull_answer(req,
                               code,
                               suggest,
                               2,
                               code == 0 ? record("TopicTest", 1, 0, "hello") +
                                               record("TopicTest", 1, 1, std::string(5000, 'z'))
                                         : std::string()));
        };
    };
    master.set_handler(pull_handler(0, 1));
    slave.set_handler(pull_handler(19, 0));
    rmq::RemotingTransport transport{config_for(namesrv)};
    (void)transport.topic_route("TopicTest");
    auto pull = [&](std::int32_t sys_flag) {
        std::promise<rmq::Outcome<rmq::PullResult>> p;
        rmq::PullArgs args;
        args.consumer_group = "cg";
        args.mq = rmq::MessageQueue{"TopicTest", "broker-a", 1};
        args.sys_flag = sys_flag;
        args.commit_offset = 7;
        args.suspend_timeout_millis = 1000;
        transport.pull(args, [&](rmq::Outcome<rmq::PullResult> o) { p.set_value(std::move(o)); });
        auto f = p.get_future();
        REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
        return f.get();
    };
    const std::int32_t flags = rmq::pull_sys_flag::commit_offset | rmq::pull_sys_flag::suspend;
    auto first = pull(flags);
    REQUIRE(first.ok());
    CHECK(first.value().status == rmq::PullStatus::Found);
    CHECK(first.value().next_begin_offset == 2);
    CHECK(first.value().suggest_which_broker_id == 1);
    REQUIRE(first.value().msg_found_list.size() == 2);
    CHECK(first.value().msg_found_list[0].body() == "hello");
    CHECK(first.value().msg_found_list[1].body() == std::string(5000, 'z'));
    CHECK(first.value().msg_found_list[1].queue_offset() == 1);
    const auto m = master.received();
    REQUIRE(m.size() == 1);
    CHECK(m[0].field("sysFlag") == "3");
    CHECK(m[0].field("commitOffset") == "7");
    CHECK(m[0].field("bname") == "broker-a");

    auto second = pull(flags);  // now to the slave, without the commit bit
    REQUIRE(second.ok());
    CHECK(second.value().status == rmq::PullStatus::NoNewMsg);
    const auto s = slave.received();
    REQUIRE(s.size() == 1);
    CHECK(s[0].field("sysFlag") == "2");

    master.set_handler(pull_handler(21, 0));
    auto third = pull(flags);  // the slave suggested the master again
    REQUIRE(third.ok());
    CHECK(third.value().status == rmq::PullStatus::OffsetIllegal);
    master.set_handler(pull_handler(20, 0));
    CHECK(pull(flags).value().status == rmq::PullStatus::NoMatchedMsg);
    master.set_handler(pull_handler(215, 0));
    auto flow = pull(flags);
    REQUIRE_FALSE(flow.ok());
    CHECK(flow.code() == rmq::response_code::flow_control);
}

namespace {

/// An inner-batch record (a BatchCQ topic's batch) of `n` messages at queue offset `offset`; `damaged`: its
/// body is not a batch body.
std::string inner_batch_record(std::int64_t offset, int n, bool damaged = false) {
    std::vector<rmq::Message> inner;
    for (int i = 0; i < n; ++i) {
        inner.emplace_back("BatchTopic", "TagA", "inner" + std::to_string(i));
        inner.back().set_property("UNIQ_KEY", "7F00000130392A2B3C4D0000123400A" + std::to_string(i));
    }
    rmq::MessageExt m;
    m.set_topic("BatchTopic");
    m.set_body(damaged ? std::string("not a batch") : rmq::remoting::encode_messages(inner));
    m.set_queue_id(1);
    m.set_queue_offset(offset);
    m.set_sys_flag(rmq::remoting::message_sys_flag::inner_batch |
                   rmq::remoting::message_sys_flag::need_unwrap);
    m.set_born_host("127.0.0.1:1234");
    m.set_store_host("127.0.0.1:10911");
    m.set_body_crc(rmq::remoting::crc32(m.body()));
    return rmq::remoting::encode_message(m);
}

}  // namespace

TEST_CASE("pull unwraps 5.x inner batches before applying offsetDelta, and delivers a damaged one as it came",
          "[remoting_transport][batch_cq]") {
    rmq_test::FakeServer broker;
    rmq_test::FakeServer namesrv;
    namesrv.set_handler(
        [&](rmq_test::FakeSession& s, const Command& req) { s.send(ok(req, route_json(broker.address()))); });
    bool damaged = false;
    std::mutex m;
    broker.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        const std::lock_guard lock(m);
        auto r = pull_answer(
            req, 0, 0, 13, inner_batch_record(0, 3, damaged) + record("BatchTopic", 1, 3, "plain"));
        r.fields().set("offsetDelta", "10");
        s.send(std::move(r));
    });
    rmq::RemotingTransport transport{config_for(namesrv)};
    (void)transport.topic_route("BatchTopic");
    auto pull = [&] {
        std::promise<rmq::Outcome<rmq::PullResult>> p;
        rmq::PullArgs args;
        args.consumer_group = "cg";
        args.mq = rmq::MessageQueue{"BatchTopic", "broker-a", 1};
        transport.pull(args, [&](rmq::Outcome<rmq::PullResult> o) { p.set_value(std::move(o)); });
        auto f = p.get_future();
        REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
        auto o = f.get();
        REQUIRE(o.ok());
        return o.value().msg_found_list;
    };
    const auto msgs = pull();
    REQUIRE(msgs.size() == 4);
    for (int i = 0; i < 3; ++i) {
        CHECK(msgs[i].body() == "inner" + std::to_string(i));
        CHECK(msgs[i].queue_offset() == 10 + i);
        CHECK(msgs[i].msg_id() == "7F00000130392A2B3C4D0000123400A" + std::to_string(i));
        CHECK(msgs[i].tags() == "TagA");
    }
    CHECK(msgs[3].body() == "plain");
    CHECK(msgs[3].queue_offset() == 13);

    {
        const std::lock_guard lock(m);
        damaged = true;
    }
    const auto as_came = pull();
    REQUIRE(as_came.size() == 2);
    CHECK(as_came[0].body() == "not a batch");
    CHECK(as_came[0].queue_offset() == 10);
}

TEST_CASE("pull with a post function: the io thread only reads, the answer is decoded in the posted task",
          "[remoting_transport]") {
    STATIC_REQUIRE(rmq::HasPullPostingToCaller<rmq::RemotingTransport>);
    rmq_test::FakeServer master;
    rmq_test::FakeServer namesrv;
    namesrv.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        s.send(ok(req, route_json(master.address(), master.address())));
    });
    master.set_handler([](rmq_test::FakeSession& s, const Command& req) {
        s.send(pull_answer(req, 0, 0, 1, record("TopicTest", 1, 0, "posted")));
    });
    rmq::RemotingTransport transport{config_for(namesrv)};
    (void)transport.topic_route("TopicTest");
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<std::function<void()>> posted;
    std::optional<rmq::Outcome<rmq::PullResult>> answer;
    std::thread::id answered_on;
    rmq::PullArgs args;
    args.consumer_group = "cg";
    args.mq = rmq::MessageQueue{"TopicTest", "broker-a", 1};
    transport.pull(
        args,
        [&](rmq::Outcome<rmq::PullResult> o) {
            const std::lock_guard lock(mutex);
            answer.emplace(std::move(o));
            answered_on = std::this_thread::get_id();
        },
        [&](std::function<void()> task) {
            const std::lock_guard lock(mutex);
            posted.push_back(std::move(task));
            cv.notify_all();
        });
    std::unique_lock lock(mutex);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return !posted.empty(); }));
    CHECK_FALSE(answer.has_value());  // nothing decoded or answered on the io thread
    auto task = std::move(posted.front());
    lock.unlock();
    task();
    lock.lock();
    REQUIRE(answer.has_value());
    CHECK(answered_on == std::this_thread::get_id());
    REQUIRE(answer->ok());
    REQUIRE(answer->value().msg_found_list.size() == 1);
    CHECK(answer->value().msg_found_list[0].body() == "posted");
}

TEST_CASE("send: SEND_MESSAGE_V2 with UNIQ_KEY, zlib above 4 KiB, SYSTEM_BUSY retried",
          "[remoting_transport]") {
    rmq_test::FakeServer server;
    int busy = 2;
    server.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        if (req.code == rc::get_routeinfo_by_topic) {
            auto r = ok(req);
            r.body = route_json(server.address());
            s.send(r);
            return;
        }
        if (req.code == rc::send_message_v2 && busy > 0) {
            --busy;
            auto r = rmq_test::FakeSession::response_to(req, 2);
            r.remark = "[REJECTREQUEST]system busy, start flow control for a while";
            s.send(r);
            return;
        }
        auto r = ok(req);
        r.fields().set("msgId", "7F00000100002A9F0000000000000010");
        r.fields().set("queueId", std::string(req.field("e").value_or("0")));
        r.fields().set("queueOffset", "42");
        s.send(r);
    });
    rmq::RemotingTransport transport{config_for(server)};
    const auto q = transport.topic_route("TopicTest").write_queues.at(2);
    rmq::Message msg("TopicTest", "TagA", "key-1", std::string(5000, 'a'));
    msg.set_property("color", "blue");
    const auto r = transport.send(msg, q);
    CHECK(r.status == rmq::SendStatus::SendOk);
    CHECK(r.offset_msg_id == "7F00000100002A9F0000000000000010");
    CHECK(r.queue_offset == 42);
    CHECK(r.message_queue == q);
    CHECK(r.msg_id.size() == 32);
    const auto got = server.received();
    REQUIRE(got.size() == 4);  // route + 2 busy + success
    const auto& req = got.back();
    CHECK(req.code == rc::send_message_v2);
    CHECK(req.field("b") == std::optional<std::string_view>("TopicTest"));
    CHECK(req.field("e") == "2");
    CHECK(req.field("n") == "broker-a");
    CHECK(req.field("f") == std::to_string(0x1 | 0x300));
    CHECK(rmq::remoting::decompress(req.body, rmq::remoting::CompressionType::Zlib) ==
          std::string(5000, 'a'));
    const auto props = rmq::decode_properties(req.field("i").value_or(""));
    CHECK(props.at("UNIQ_KEY") == r.msg_id);
    CHECK(props.at("TAGS") == "TagA");
    CHECK(props.at("KEYS") == "key-1");
    CHECK(props.at("color") == "blue");

    rmq::Message small("TopicTest", "small");
    (void)transport.send(small, q);
    CHECK(server.received().back().field("f") == "0");
    CHECK(server.received().back().body == "small");
}

TEST_CASE("send(msg, mq) on a fresh transport looks the queue's topic up first (Java's sendKernelImpl)",
          "[remoting_transport]") {
    rmq_test::FakeServer server;
    const auto asked = [&] {  // the topics whose routes were requested, in order
        std::vector<std::string> out;
        for (const auto& c : server.received()) {
            if (c.code == rc::get_routeinfo_by_topic && !c.is_response()) {
                out.emplace_back(c.field("topic").value_or(""));
            }
        }
        return out;
    };
    server.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        if (req.code == rc::get_routeinfo_by_topic) {
            if (req.field("topic") == "NotCreatedYet") {
                auto r = rmq_test::FakeSession::response_to(req, rmq::response_code::topic_not_exist);
                r.remark = "No topic route info in name server for the topic: NotCreatedYet";
                s.send(r);
                return;
            }
            auto r = ok(req);
            r.body = route_json(server.address());
            s.send(r);
            return;
        }
        auto r = ok(req);
        r.fields().set("msgId", "7F00000100002A9F0000000000000010");
        r.fields().set("queueId", std::string(req.field("e").value_or("0")));
        r.fields().set("queueOffset", "7");
        s.send(r);
    });
    rmq::RemotingTransport transport{config_for(server)};
    const rmq::MessageQueue q{"TopicTest", "broker-a", 1};
    const auto r = transport.send(rmq::Message("TopicTest", "first"), q);
    CHECK(r.status == rmq::SendStatus::SendOk);
    CHECK(r.message_queue == q);
    CHECK(asked() == std::vector<std::string>{"TopicTest"});
    (void)transport.send(rmq::Message("TopicTest", "second"), q);
    CHECK(asked().size() == 1);  // cached now

    // A topic the NameServer does not know yet: the create-topic-key route names the brokers.
    rmq::RemotingTransport fresh{config_for(server)};
    const rmq::MessageQueue nq{"NotCreatedYet", "broker-a", 0};
    CHECK(fresh.send(rmq::Message("NotCreatedYet", "x"), nq).status == rmq::SendStatus::SendOk);
    CHECK(asked() == std::vector<std::string>{"TopicTest", "NotCreatedYet", "TBW102"});
    // A broker no route names still fails, naming it.
    CHECK_THROWS_WITH(
        fresh.send(rmq::Message("TopicTest", "x"), rmq::MessageQueue{"TopicTest", "broker-zz", 0}),
        Catch::Contains("broker-zz"));
}

TEST_CASE("lock_batch sends one request per broker and returns what was locked", "[remoting_transport]") {
    rmq_test::FakeServer a;
    rmq_test::FakeServer b;
    rmq_test::FakeServer namesrv;
    namesrv.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        rmq::remoting::TopicRouteData r;
        for (auto [name, addr] : {std::pair{"broker-a", a.address()}, std::pair{"broker-b", b.address()}}) {
            r.queue_datas.push_back(rmq::remoting::QueueData{name, 2, 2, 6, 0});
            rmq::remoting::BrokerData bd;
            bd.broker_name = name;
            bd.broker_addrs.emplace_back(0, addr);
            r.broker_datas.push_back(bd);
        }
        auto resp = ok(req);
        resp.body = rmq::remoting::encode_topic_route_data(r, rmq::remoting::RouteJsonForm::Standard);
        s.send(resp);
    });
    auto lock_all = [](rmq_test::FakeSession& s, const Command& req) {
        auto body = rmq::remoting::decode_lock_batch_request(req.body);
        auto r = ok(req);
        r.body = rmq::remoting::encode_lock_batch_response(body.mq_set);
        s.send(r);
    };
    a.set_handler(lock_all);
    b.set_handler([](rmq_test::FakeSession& s, const Command& req) {
        auto r = ok(req);
        r.body = rmq::remoting::encode_lock_batch_response({});
        s.send(r);
    });
    rmq::RemotingTransport transport{config_for(namesrv)};
    const auto queues = transport.topic_route("T").read_queues;
    REQUIRE(queues.size() == 4);
    const auto locked = transport.lock_batch("cg", "cid", queues);
    REQUIRE(locked.size() == 2);
    CHECK(locked[0].broker_name == "broker-a");
    REQUIRE(a.received().size() == 1);
    REQUIRE(b.received().size() == 1);
    const auto body = rmq::remoting::decode_lock_batch_request(b.received()[0].body);
    CHECK(body.consumer_group == "cg");
    CHECK(body.client_id == "cid");
    CHECK(body.mq_set.size() == 2);
    transport.unlock_batch("cg", "cid", queues);
    CHECK(a.received().back().code == rc::unlock_batch_mq);
    CHECK(b.received().back().code == rc::unlock_batch_mq);
}

TEST_CASE("broker requests: consumer ids changed reaches the handler, running info and unsupported codes are "
          "answered",
          "[remoting_transport]") {
    rmq_test::FakeServer server;
    server.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        if (req.is_response()) {
            return;
        }
        auto r = ok(req);
        if (req.code == rc::get_routeinfo_by_topic) {
            r.body = route_json(server.address());
        }
        s.send(r);
    });
    rmq::RemotingTransport transport{config_for(server)};
    std::promise<std::string> notified;
    transport.set_notification_handler(
        [&](const rmq::ConsumerIdsChanged& n) { notified.set_value(n.consumer_group); });
    rmq::HeartbeatData hb;
    hb.client_id = "cid";
    rmq::ConsumerData cd;
    cd.group_name = "cg";
    cd.subscription_data_set.push_back(rmq::parse_subscription("TopicTest", "TagA || TagB"));
    hb.consumer_data_set.push_back(cd);
    transport.heartbeat(hb);
    REQUIRE(server.wait_session());
    auto session = server.last_session();

    Command notify;
    notify.code = rc::notify_consumer_ids_changed;
    notify.flag = rmq::remoting::command_flag::oneway;
    notify.opaque = 900;
    notify.fields().set("consumerGroup", "cg");
    session->send(notify);
    auto f = notified.get_future();
    REQUIRE(f.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    CHECK(f.get() == "cg");

    Command info;
    info.code = rc::get_consumer_running_info;
    info.opaque = 901;
    info.fields().set("consumerGroup", "cg");
    info.fields().set("clientId", "cid");
    session->send(info);
    Command unknown_group = info;
    unknown_group.opaque = 902;
    unknown_group.fields().set("consumerGroup", "other");
    session->send(unknown_group);
    Command direct;  // a request rmq does not take (no request/reply)
    direct.code = rc::push_reply_message_to_client;
    direct.opaque = 903;
    session->send(direct);
    REQUIRE(server.wait_for([](const auto& got) {
        return std::count_if(got.begin(), got.end(), [](const Command& c) { return c.is_response(); }) == 3;
    }));
    std::map<int, Command> responses;
    for (const auto& c : server.received()) {
        if (c.is_response()) {
            responses[c.opaque] = c;
        }
    }
    REQUIRE(responses.size() == 3);
    CHECK(responses[901].code == 0);
    const auto j = nlohmann::json::parse(responses[901].body);
    CHECK(j["subscriptionSet"][0]["subString"] == "TagA || TagB");
    CHECK(j["properties"]["PROP_CONSUME_TYPE"] == "CONSUME_PASSIVELY");
    CHECK(responses[902].code == rmq::response_code::system_error);
    CHECK(responses[903].code == rmq::response_code::request_code_not_supported);
}

TEST_CASE("offsets, consumer list and send-back go to the master with the right headers",
          "[remoting_transport]") {
    rmq_test::FakeServer server;
    server.set_handler([&](rmq_test::FakeSession& s, const Command& req) {
        auto r = ok(req);
        switch (req.code) {
        case rc::get_routeinfo_by_topic:
            r.body = route_json(server.address());
            break;
        case rc::query_consumer_offset:
            if (req.field("queueId") == "1") {
                r.code = 22;
            } else {
                r.fields().set("offset", "17");
            }
            break;
        case rc::get_max_offset:
        case rc::get_min_offset:
        case rc::search_offset_by_timestamp:
            r.fields().set("offset", std::to_string(req.code));
            break;
        case rc::get_consumer_list_by_group:
            r.body = rmq::remoting::encode_consumer_list(std::vector<std::string>{"b", "a"});
            break;
        default:
            break;
        }
        s.send(r);
    });
    rmq::RemotingTransport transport{config_for(server)};
    const rmq::MessageQueue q0{"TopicTest", "broker-a", 0};
    const rmq::MessageQueue q1{"TopicTest", "broker-a", 1};
    (void)transport.topic_route("TopicTest");
    CHECK(transport.query_consumer_offset("cg", q0) == std::optional<std::int64_t>(17));
    CHECK(transport.query_consumer_offset("cg", q1) == std::nullopt);
    transport.update_consumer_offset("cg", q0, 33);
    CHECK(server.received().back().field("commitOffset") == "33");
    CHECK(transport.max_offset(q0) == rc::get_max_offset);
    CHECK(transport.min_offset(q0) == rc::get_min_offset);
    CHECK(transport.search_offset(q0, 1700000000000) == rc::search_offset_by_timestamp);
    CHECK(server.received().back().field("timestamp") == "1700000000000");
    // the union of every broker's answer, sorted (the broker answered b, a)
    CHECK(transport.consumer_id_list("TopicTest", "cg") == std::vector<std::string>{"a", "b"});
    rmq::SendBackArgs back;
    back.group = "cg";
    back.message.set_topic("TopicTest");
    back.message.set_broker_name("broker-a");
    back.message.set_commit_log_offset(4242);
    back.max_reconsume_times = 2;
    transport.send_back(back);
    const auto req = server.received().back();
    CHECK(req.code == rc::consumer_send_msg_back);
    CHECK(req.field("offset") == "4242");
    CHECK(req.field("group") == "cg");
    CHECK(req.field("maxReconsumeTimes") == "2");
}

TEST_CASE("copies share one state and the transport is usable after a move", "[remoting_transport]") {
    rmq_test::FakeServer server;
    server.set_handler(
        [&](rmq_test::FakeSession& s, const Command& req) { s.send(ok(req, route_json(server.address()))); });
    rmq::RemotingTransport a{config_for(server)};
    rmq::RemotingTransport b = a;
    (void)a.topic_route("T");
    (void)b.topic_route("T");
    CHECK(server.received().size() == 1);
    rmq::RemotingTransport c = std::move(a);
    CHECK(c.topic_route("T").read_queues.size() == 4);
    CHECK(c.clock() == rmq::system_clock());
}
