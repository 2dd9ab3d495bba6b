// QUERY_ASSIGNMENT and SET_MESSAGE_REQUEST_MODE over RemotingTransport against a fake broker: the requests
// carry Java's bodies and no header, the answer is decoded, and a 4.x broker's REQUEST_CODE_NOT_SUPPORTED is
// rmq::AssignmentUnsupported naming the request and the version needed.

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <string>
#include <vector>

#include "fake_server.hpp"

#include <catch2/catch.hpp>

#include <rmq/assignment.hpp>
#include <rmq/error.hpp>
#include <rmq/remoting/bodies/assignment.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/transport/remoting.hpp>

namespace assignment_remoting_test {

namespace {

using rmq::remoting::Command;
namespace rc = rmq::remoting::request_code;

rmq::RemotingTransport transport_to(rmq_test::FakeServer& server) {
    rmq::RemotingConfig c;
    c.namesrv_addr = server.address();
    return rmq::RemotingTransport{c};
}

using rmq_test::requests_of;

const rmq::QueryAssignmentArgs query{.topic = "T",
                                     .consumer_group = "g",
                                     .client_id = "10.0.0.1@1",
                                     .strategy_name = "AVG",
                                     .message_model = rmq::MessageModel::Clustering};

}  // namespace

TEST_CASE("QUERY_ASSIGNMENT goes as Java's body to a broker of the topic and its answer is decoded",
          "[assignment][remoting]") {
    rmq_test::FakeServer server;
    const std::vector<rmq::MessageQueueAssignment> answer{
        {.message_queue = rmq::MessageQueue{"T", "broker-a", 1},
         .mode = rmq::MessageRequestMode::Pull,
         .attachments = {}},
        {.message_queue = rmq::MessageQueue{"T", "broker-a", -1},
         .mode = rmq::MessageRequestMode::Pop,
         .attachments = {}}};
    rmq_test::answer_ok(server, [&](const Command& req, Command& r) {
        if (req.code == rc::query_assignment) {
            r.body = rmq::remoting::encode_query_assignment_response(answer);
        }
    });
    auto tr = transport_to(server);
    const auto got = tr.query_assignment(query);
    REQUIRE(got.has_value());
    CHECK(*got == answer);
    const auto sent = requests_of(server, rc::query_assignment);
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].body == rmq::remoting::encode_query_assignment_request(query));
    CHECK((!sent[0].ext_fields || sent[0].ext_fields->empty()));

    tr.set_message_request_mode(rmq::SetMessageRequestModeArgs{
        .topic = "T", .consumer_group = "g", .mode = rmq::MessageRequestMode::Pop, .pop_share_queue_num = 2});
    const auto modes = requests_of(server, rc::set_message_request_mode);
    REQUIRE(modes.size() == 1);
    CHECK(rmq::remoting::decode_set_message_request_mode(modes[0].body).pop_share_queue_num == 2);
}

TEST_CASE("a broker without an assignment for the member answers nullopt", "[assignment][remoting]") {
    rmq_test::FakeServer server;
    rmq_test::answer_ok(server, [](const Command& req, Command& r) {
        if (req.code == rc::query_assignment) {
            r.body = "{}";  // QueryAssignmentProcessor's null set: unknown strategy
        }
    });
    auto tr = transport_to(server);
    CHECK_FALSE(tr.query_assignment(query).has_value());
}

TEST_CASE("a 4.x broker's refusal of QUERY_ASSIGNMENT is AssignmentUnsupported", "[assignment][remoting]") {
    rmq_test::FakeServer server;
    rmq_test::answer_ok(server, [](const Command& req, Command& r) {
        if (req.code == rc::query_assignment || req.code == rc::set_message_request_mode) {
            r.code = rmq::response_code::request_code_not_supported;  // 4.9.x: no processor for 400/401
            r.remark = fmt::format(" request type {} not supported", req.code);
        }
    });
    auto tr = transport_to(server);
    try {
        (void)tr.query_assignment(query);
        FAIL("query_assignment did not throw");
    } catch (const rmq::AssignmentUnsupported& e) {
        CHECK(e.code() == rmq::response_code::request_code_not_supported);
        CHECK_THAT(e.what(), Catch::Contains("QUERY_ASSIGNMENT") && Catch::Contains("5.x"));
    }
    CHECK_THROWS_AS(
        tr.set_message_request_mode(rmq::SetMessageRequestModeArgs{.topic = "T", .consumer_group = "g"}),
        rmq::AssignmentUnsupported);
}

}  // namespace assignment_remoting_test
