// examples/remote_producer.cpp and examples/remote_consumer.cpp run against the cluster (plain ctest cannot:
// they need a NameServer): what the producer reports sent, the consumer reports consumed, by message id. They
// take TLS (RMQ_TLS_CA, which tools/broker-test.sh exports from cluster.env) and ACL credentials from the
// environment.

#include <array>
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "cluster.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

namespace {

struct Run {
    int status = -1;
    std::string out;
};

/// On an --acl cluster the examples sign as its super user (examples/remote_config.hpp reads these).
std::string credentials_env() {
    if (!rmq_rc::acl()) {
        return "";
    }
    return fmt::format("RMQ_ACCESS_KEY='{}' RMQ_SECRET_KEY='{}' ",
                       rmq_rc::env("RMQ_ACL_ADMIN_AK"),
                       rmq_rc::env("RMQ_ACL_ADMIN_SK"));
}

/// Runs a shell command, capturing its standard output.
Run run(const std::string& cmd) {
    Run r;
    FILE* pipe =
        ::popen((credentials_env() + cmd).c_str(), "r");  // NOLINT(cert-env33-c): fixed paths of this build
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) {
        r.out += buf.data();
    }
    r.status = ::pclose(pipe);
    return r;
}

/// The first word after `prefix` on each line that starts with it.
std::set<std::string> ids_after(const std::string& out, const std::string& prefix) {
    std::set<std::string> ids;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(prefix, 0) == 0) {
            const auto rest = line.substr(prefix.size());
            ids.insert(rest.substr(0, rest.find(' ')));
        }
    }
    return ids;
}

}  // namespace

TEST_CASE("examples: remote_producer's messages are what remote_consumer consumes",
          "[realcluster][examples]") {
    const std::string topic = rmq_rc::unique("RcExample");
    rmq_rc::create_topic(topic, 4);
    const auto produced =
        run(fmt::format("'{}' '{}' '{}' 20 TagA", RMQ_RC_EXAMPLE_REMOTE_PRODUCER, rmq_rc::namesrv(), topic));
    INFO(produced.out);
    REQUIRE(produced.status == 0);
    CHECK(produced.out.find("20 messages sent in") != std::string::npos);
    const auto sent = ids_after(produced.out, "sent ");
    REQUIRE(sent.size() == 20);

    // The consumer runs for a fixed time (its command line); 30 s is far more than 20 messages need.
    const auto consumed = run(fmt::format("'{}' '{}' '{}' '{}' '*' 30",
                                          RMQ_RC_EXAMPLE_REMOTE_CONSUMER,
                                          rmq_rc::namesrv(),
                                          rmq_rc::unique("exg"),
                                          topic));
    INFO(consumed.out);
    REQUIRE(consumed.status == 0);
    CHECK(consumed.out.find("consumed 20 messages") != std::string::npos);
    std::set<std::string> got;
    for (const auto& id : sent) {
        if (consumed.out.find(id + " " + topic + " ") != std::string::npos) {
            got.insert(id);
        }
    }
    CHECK(got == sent);

    // Usage errors: no arguments prints the usage, wrong arguments fail.
    CHECK(run(fmt::format("'{}' only-one-arg >/dev/null", RMQ_RC_EXAMPLE_REMOTE_PRODUCER)).status != 0);
}
