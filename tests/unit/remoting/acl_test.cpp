#include <map>
#include <string>

#include <golden.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <rmq/remoting/acl.hpp>

namespace {

using namespace rmq::remoting;

std::string java_value_of(const nlohmann::json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

Command request_from(const nlohmann::json& r) {
    Command cmd;
    cmd.code = r.at("code").get<std::int32_t>();
    cmd.opaque = r.at("opaque").get<std::int32_t>();
    for (const char* part : {"extFields_preset", "customHeader_fields"}) {
        if (!r.at(part).is_null()) {
            for (const auto& [k, v] : r.at(part).items()) {
                if (!v.is_null()) {
                    cmd.fields().set(k, java_value_of(v));
                }
            }
        }
    }
    if (!r.at("body_hex").is_null()) {
        cmd.body = rmq_test::from_hex(r.at("body_hex").get<std::string>());
    }
    return cmd;
}

}  // namespace

TEST_CASE("every misc.json acl_requests case signs like AclClientRPCHook", "[remoting][acl][golden]") {
    const auto golden = rmq_test::load_golden("misc.json");
    const auto& cases = golden.at("acl_requests");
    REQUIRE(cases.size() == 11);
    std::size_t signed_ok = 0;
    std::size_t errors = 0;
    for (const auto& c : cases) {
        INFO(c.at("name").get<std::string>());
        Command cmd = request_from(c.at("request"));
        AclCredentials cred{c.at("accessKey").get<std::string>(), c.at("secretKey").get<std::string>(), {}};
        if (!c.at("securityToken").is_null()) {
            cred.security_token = c.at("securityToken").get<std::string>();
        }
        if (c.contains("error")) {
            CHECK_THROWS_WITH(acl_sign(cmd, cred), Catch::Contains("secret key is empty"));
            ++errors;
            continue;
        }
        acl_sign(cmd, cred);
        std::map<std::string, std::string> got;
        for (const auto& [k, v] : *cmd.ext_fields) {
            got[k] = v.value_or("<null>");
        }
        std::map<std::string, std::string> want;
        for (const auto& [k, v] : c.at("extFields_after_sorted").items()) {
            want[k] = v.get<std::string>();
        }
        CHECK(got == want);
        CHECK(rmq_test::to_hex(acl_signing_content(cmd)) == c.at("signed_bytes_hex").get<std::string>());
        CHECK(cmd.field("Signature") ==
              std::optional<std::string_view>(c.at("Signature").get_ref<const std::string&>()));
        // Signing again (e.g. a retried request) replaces the signature with the same value.
        acl_sign(cmd, cred);
        CHECK(*cmd.field("Signature") == c.at("Signature").get<std::string>());
        ++signed_ok;
    }
    CHECK(signed_ok == 10);
    CHECK(errors == 1);
}

TEST_CASE("every misc.json acl_direct case matches AclSigner.calSignature", "[remoting][acl][golden]") {
    const auto golden = rmq_test::load_golden("misc.json");
    const auto& cases = golden.at("acl_direct");
    REQUIRE(cases.size() == 6);
    for (const auto& c : cases) {
        const auto data = c.at("data").get<std::string>();
        const auto key = c.at("secretKey").get<std::string>();
        INFO(data.substr(0, 40) << " / " << key);
        CHECK(rmq_test::to_hex(data) == c.at("data_utf8_hex").get<std::string>());
        if (c.contains("error")) {
            CHECK_THROWS_AS(acl_signature(data, key), rmq::InvalidArgument);
            continue;
        }
        CHECK(acl_signature(data, key) == c.at("AclSigner.calSignature").get<std::string>());
        CHECK(acl_signature(rmq::detail::as_bytes(data), key) ==
              c.at("AclUtils.calSignature(bytes)").get<std::string>());
    }
}

TEST_CASE("worked ACL example: rocketmq2 / 12345678 signing a route request", "[remoting][acl]") {
    Command cmd;
    cmd.code = 105;
    cmd.fields().set("topic", "TopicTest");
    cmd.fields().set("acceptStandardJsonOnly", "true");
    acl_sign(cmd, AclCredentials{"rocketmq2", "12345678", {}});
    CHECK(acl_signing_content(cmd) == "rocketmq2trueTopicTest");
    CHECK(cmd.field("Signature") == std::optional<std::string_view>("EvCVn1/pIhQGNcZnAZsj264sC2k="));
}
