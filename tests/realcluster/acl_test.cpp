// ACL against Apache RocketMQ started with `tools/rocketmq.sh start --acl` (RMQ_ACL=1 tools/broker-test.sh
// "[acl]"; 5.3.3's authentication + authorization, or with RMQ_VERSION=4.9.7 4.x's ACL 1.0 and
// plain_acl.yml): the brokers authenticate every request (rmq signs like Java's AclClientRPCHook) and
// authorize it against the users' ACLs. rmq_user may publish and subscribe topics and groups named RcAcl*
// (on 4.x: every topic and group), rmq_denied may only publish. 5.x refuses with NO_PERMISSION (16) and a
// text naming the user, 4.x with SYSTEM_ERROR (1) and its AclException's text naming the resource; both are
// rmq::AccessDenied. Checked: the right credentials produce and consume (concurrently and orderly, queue
// locks included); a wrong secret key fails with rmq::AccessDenied naming the access key; a user without
// subscribe permission is refused clearly while its consumer keeps retrying, with a bounded number of log
// lines, and consumes once the permission is granted; no secret key ever appears in a log line or an
// exception text. On a cluster without ACL these tests only say so (and pass).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cluster.hpp"
#include "round_trip.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <rmq/consumer.hpp>
#include <rmq/error.hpp>
#include <rmq/log.hpp>
#include <rmq/producer.hpp>
#include <rmq/protocol.hpp>
#include <rmq/transport/remoting.hpp>

namespace {

using Transport = rmq::RemotingTransport;

bool acl_cluster() {
    if (!rmq_rc::acl()) {
        WARN(
            "the cluster does not enforce ACL: ACL tests not run (RMQ_ACL=1 tools/broker-test.sh \"[acl]\")");
        return false;
    }
    return true;
}

struct User {
    std::string access_key;
    std::string secret_key;
};

/// ROLE is ADMIN, USER or DENIED (cluster.env's RMQ_ACL_<ROLE>_AK/SK).
User user(const std::string& role) {
    return User{rmq_rc::env(fmt::format("RMQ_ACL_{}_AK", role).c_str()),
                rmq_rc::env(fmt::format("RMQ_ACL_{}_SK", role).c_str())};
}

rmq::RemotingConfig signed_as(const std::string& access_key, const std::string& secret_key) {
    auto c = rmq_rc::config();
    c.credentials =
        rmq::AclCredentials{.access_key = access_key, .secret_key = secret_key, .security_token = {}};
    return c;
}

/// A topic or group name the ACLs of rmq_user (and, for topics, rmq_denied's Pub) cover.
std::string allowed_name(const std::string& what) {
    return rmq_rc::unique(rmq_rc::env("RMQ_ACL_PREFIX") + what);
}

/// Every line rmq logs while it lives, and every exception text a test hands it.
class Texts {
public:
    Texts() {
        rmq::set_log_handler([this](rmq::LogLevel, std::string_view m) {
            const std::lock_guard lock(mutex_);
            logs_.emplace_back(m);
        });
    }

    Texts(const Texts&) = delete;
    Texts& operator=(const Texts&) = delete;

    ~Texts() { rmq::set_log_handler({}); }

    void add_exception(std::string what) {
        const std::lock_guard lock(mutex_);
        exceptions_.push_back(std::move(what));
    }

    std::vector<std::string> logs() const {
        const std::lock_guard lock(mutex_);
        return logs_;
    }

    std::size_t log_count() const {
        const std::lock_guard lock(mutex_);
        return logs_.size();
    }

    std::size_t logs_containing(std::string_view a, std::string_view b = {}) const {
        const std::lock_guard lock(mutex_);
        return static_cast<std::size_t>(std::count_if(logs_.begin(), logs_.end(), [&](const std::string& l) {
            return l.find(a) != std::string::npos && l.find(b) != std::string::npos;
        }));
    }

    /// No secret key of any user (nor `extra`) in a log line or an exception text.
    void check_no_secret(const std::vector<std::string>& extra = {}) const {
        std::vector<std::string> secrets = extra;
        for (const char* role : {"ADMIN", "USER", "DENIED"}) {
            secrets.push_back(user(role).secret_key);
        }
        const std::lock_guard lock(mutex_);
        INFO(fmt::format("{} log lines, {} exception texts checked", logs_.size(), exceptions_.size()));
        for (const auto& s : secrets) {
            REQUIRE(s.size() >= 8);
            for (const auto* texts : {&logs_, &exceptions_}) {
                for (const auto& t : *texts) {
                    INFO(t);
                    CHECK(t.find(s) == std::string::npos);
                }
            }
        }
    }

private:
    mutable std::mutex mutex_;
    std::vector<std::string> logs_;
    std::vector<std::string> exceptions_;
};

/// The text of a broker's refusal: a wrong signature, a missing subscribe permission of user `access_key`.
std::string signature_refused() {
    return rmq_rc::rocketmq_4x() ? "Check signature failed" : "check signature failed";
}

std::pair<std::string, std::string> subscribe_refused(const std::string& access_key) {
    if (rmq_rc::rocketmq_4x()) {  // "AclException: No default permission for group:X" + the key rmq adds
        return {"No default permission for", "access key " + access_key};
    }
    return {"no permission", "User:" + access_key};
}

/// Failing every 200 ms instead of every 20-30 s: a log flood would show within seconds.
rmq::ConsumerConfig eager(const std::string& group) {
    rmq::ConsumerConfig cfg{.consumer_group = group,
                            .consume_from_where = rmq::ConsumeFromWhere::FirstOffset};
    cfg.rebalance_interval = 200;
    cfg.heartbeat_broker_interval = 200;
    cfg.poll_name_server_interval = 200;
    cfg.persist_consumer_offset_interval = 200;
    cfg.pull_time_delay_mills_when_exception = 200;
    return cfg;
}

}  // namespace

TEST_CASE("ACL: the right credentials produce and consume concurrently and orderly", "[realcluster][acl]") {
    if (!acl_cluster()) {
        return;
    }
    Texts texts;
    const auto u = user("USER");
    const std::string topic = allowed_name("Topic");
    rmq_rc::create_topic(topic, 4);
    Transport transport{signed_as(u.access_key, u.secret_key)};
    REQUIRE(transport.topic_route(topic).read_queues.size() == 8);
    constexpr int n = 40;
    const auto sent = rmq_rc::produce(transport, topic, n, allowed_name("pg"), "acl");
    REQUIRE(sent.size() == n);

    SECTION("concurrently") {
        rmq_rc::consume_all<false>(transport, eager(allowed_name("cg")), topic, sent);
    }
    SECTION("orderly (LOCK_BATCH_MQ authorized)") {
        rmq_rc::consume_all<true>(transport, eager(allowed_name("og")), topic, sent);
    }
    // every request rmq made was allowed: nothing refused on the way (offsets, locks, heartbeats)
    INFO(fmt::format("log:\n{}", fmt::join(texts.logs(), "\n")));
    CHECK(texts.logs_containing("access key") == 0);
    texts.check_no_secret();
}

TEST_CASE("ACL: a wrong secret key fails with AccessDenied naming the access key, never a secret",
          "[realcluster][acl]") {
    if (!acl_cluster()) {
        return;
    }
    Texts texts;
    const auto u = user("USER");
    const std::string topic = allowed_name("Topic");
    rmq_rc::create_topic(topic, 2);
    const std::string wrong = "wrong-" + u.secret_key.substr(0, 4) + "-secret-x9";
    Transport transport{signed_as(u.access_key, wrong)};

    rmq::Producer<Transport> producer(transport, rmq::ProducerConfig{.producer_group = allowed_name("pg")});
    producer.start();
    std::optional<int> code;
    std::string what;
    try {
        (void)producer.send(rmq::Message(topic, "TagA", "k", "never stored"));
    } catch (const rmq::AccessDenied& e) {
        code = e.code();
        what = e.what();
    }
    producer.shutdown();
    texts.add_exception(what);
    INFO(what);
    REQUIRE(code ==
            (rmq_rc::rocketmq_4x() ? rmq::response_code::system_error : rmq::response_code::no_permission));
    CHECK(what.find("access key " + u.access_key) != std::string::npos);
    CHECK(what.find(signature_refused()) != std::string::npos);

    // a consumer with that secret: refused heartbeats and rebalances, each line naming the access key
    {
        rmq::PushConsumer<Transport> consumer{transport, eager(allowed_name("cg"))};
        consumer.subscribe(topic, "*");
        consumer.register_listener([](std::span<const rmq::MessageExt>, rmq::ConsumeConcurrentlyContext&) {
            return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
        consumer.start();
        CHECK(rmq_rc::wait_until(
            [&] { return texts.logs_containing(signature_refused(), "access key " + u.access_key) > 0; },
            std::chrono::seconds(30)));
        consumer.shutdown();
    }
    INFO(fmt::format("log:\n{}", fmt::join(texts.logs(), "\n")));
    texts.check_no_secret({wrong});
}

TEST_CASE("ACL: a user without subscribe permission is refused clearly, retries without a log flood, and "
          "consumes once allowed",
          "[realcluster][acl]") {
    if (!acl_cluster()) {
        return;
    }
    Texts texts;
    const auto d = user("DENIED");
    const std::string topic = allowed_name("Topic");
    const std::string group = allowed_name("cg");
    rmq_rc::create_topic(topic, 2);
    Transport transport{signed_as(d.access_key, d.secret_key)};
    // its credentials are fine: it may publish
    const auto sent = rmq_rc::produce(transport, topic, 4, allowed_name("pg"), "acl");

    rmq_rc::Got got;
    rmq_rc::Waiter waiter;
    rmq::PushConsumer<Transport> consumer{transport, eager(group)};
    consumer.subscribe(topic, "*");
    consumer.register_listener([&](std::span<const rmq::MessageExt> msgs, rmq::ConsumeConcurrentlyContext&) {
        got.add(msgs);
        waiter.notify();
        return rmq::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    try {
        consumer.start();
    } catch (const std::exception& e) {
        texts.add_exception(e.what());
        FAIL("start() threw instead of retrying: " << e.what());
    }
    // A fixed window of failing every 200 ms (heartbeats to two brokers, rebalance, pulls): ~250 attempts.
    const auto window = std::chrono::seconds(12);
    const auto t0 = std::chrono::steady_clock::now();
    const auto refused = subscribe_refused(d.access_key);
    REQUIRE(rmq_rc::wait_until([&] { return texts.logs_containing(refused.first, refused.second) > 0; },
                               std::chrono::seconds(30)));
    std::this_thread::sleep_for(window - std::min<std::chrono::steady_clock::duration>(
                                             window, std::chrono::steady_clock::now() - t0));
    const auto lines = texts.log_count();
    {
        INFO(fmt::format("{} lines in {} s:\n{}", lines, window.count(), fmt::join(texts.logs(), "\n")));
        CHECK(lines <= 12);
        CHECK(got.size() == 0);
    }

    // granting the permission is all it takes: the consumer has kept trying and now consumes
    if (rmq_rc::rocketmq_4x()) {  // the account is replaced whole: its default permissions again, plus these
        rmq_rc::mqadmin(
            fmt::format("updateAclConfig -c {} -a {} -s {} -i PUB -u DENY -t '{}=PUB|SUB' -g '{}=SUB'",
                        rmq_rc::env("RMQ_CLUSTER_NAME"),
                        d.access_key,
                        d.secret_key,
                        topic,
                        group));
    } else {
        rmq_rc::mqadmin(fmt::format("createAcl -c {} -s User:{} -r Topic:{},Group:{} -a Sub -d Allow",
                                    rmq_rc::env("RMQ_CLUSTER_NAME"),
                                    d.access_key,
                                    topic,
                                    group));
    }
    CHECK(waiter.wait([&] { return got.size() >= sent.size(); }, std::chrono::seconds(90)));
    consumer.shutdown();
    INFO(fmt::format("log:\n{}", fmt::join(texts.logs(), "\n")));
    const std::lock_guard lock(got.mutex);
    CHECK(got.ids == sent);
    texts.check_no_secret();
}
