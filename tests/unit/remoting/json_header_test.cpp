// The JSON header's fast decoder (the plain subset brokers write, without a JSON tree) against the full
// parser: a header decodes the same whether or not a member only the full parser takes (an array) forces it,
// and both refuse the same headers.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <golden.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/command.hpp>

namespace json_header_test {

namespace {

void put_be32(std::string& out, std::uint32_t v) {
    out.push_back(static_cast<char>(v >> 24));
    out.push_back(static_cast<char>((v >> 16) & 0xFF));
    out.push_back(static_cast<char>((v >> 8) & 0xFF));
    out.push_back(static_cast<char>(v & 0xFF));
}

std::string json_frame(const std::string& header, const std::string& body = "b") {
    std::string frame;
    put_be32(frame, static_cast<std::uint32_t>(4 + header.size() + body.size()));
    put_be32(frame, static_cast<std::uint32_t>(header.size()));  // serialize type 0: JSON
    return frame + header + body;
}

/// The header with a member that only the full parser accepts (and ignores): an array.
std::string forcing_full_parser(const std::string& header) {
    const std::size_t brace = header.find('{');
    REQUIRE(brace != std::string::npos);
    return header.substr(0, brace + 1) + R"("zz":[1],)" + header.substr(brace + 1);
}

std::optional<rmq::remoting::Command> decoded(const std::string& header, std::string& error) {
    try {
        return rmq::remoting::decode(json_frame(header));
    } catch (const rmq::remoting::CodecError& e) {
        error = e.what();
        return std::nullopt;
    }
}

void check_same_as_full_parser(const std::string& header) {
    INFO(header);
    std::string fast_error;
    std::string full_error;
    const auto fast = decoded(header, fast_error);
    const auto full = decoded(forcing_full_parser(header), full_error);
    REQUIRE(fast.has_value() == full.has_value());
    if (fast) {
        CHECK(*fast == *full);
        CHECK(fast->remark == full->remark);
        CHECK(fast->ext_fields.has_value() == full->ext_fields.has_value());
    }
}

}  // namespace

TEST_CASE("a JSON header decodes as the full parser decodes it, fast or not", "[remoting]") {
    const std::vector<std::string> headers = {
        R"({"code":0,"extFields":{"queueId":"3","msgId":"7F0000010000","queueOffset":"7","transactionId":null},)"
        R"("flag":1,"language":"JAVA","opaque":5,"remark":null,"serializeTypeCurrentRPC":"JSON","version":413})",
        R"({"code":1,"flag":1,"language":"JAVA","opaque":-7,"remark":"no route","version":0})",
        R"( { "code" : 25 , "extFields" : { } , "opaque" : 2147483647 , "flag" : 0 } )",
        R"({"code":0,"extFields":null,"opaque":-2147483648})",
        R"({"code":0,"remark":"a","remark":null,"opaque":1,"opaque":2})",
        R"({"extFields":{"a":"1","b":"2","a":"3"},"code":0})",
        R"({"extFields":{"a":"1"},"extFields":{"b":"2"}})",
        R"({"extFields":{"a":"1"},"extFields":null})",
        R"({"code":0,"unknown":true,"other":false,"n":12,"s":"x","z":null})",
        R"({"code":0,"language":"CPP","opaque":0})",
        R"({"code":"12","opaque":"3"})",                // numeric strings: full parser only
        R"({"code":0,"remark":"tab\tand \"quote\""})",  // escapes: full parser only
        "{\"code\":0,\"remark\":\"caf\xc3\xa9\"}",      // non-ASCII: full parser only
        R"({"code":0,"extFields":{"k":12,"j":true}})",  // non-string ext values: full parser only
        R"({"code":0,"opaque":2147483648})",            // out of int range: refused
        R"({"code":0.5})",                              // not an int: refused
        R"({"code":007})",                              // not JSON: refused
        R"({"code":0,"language":"KLINGON"})",           // unknown language: refused
        R"({"code":0} trailing)",                       // not JSON: refused
        R"({"code":0,"extFields":{"a":"1"})",           // cut short: refused
        R"({"code":0,,"opaque":1})",                    // not JSON: refused
    };
    for (const auto& header : headers) {
        check_same_as_full_parser(header);
    }
    // every JSON header of the golden vectors, as rmq writes it and as Java does
    const auto golden = rmq_test::load_golden("remoting.json");
    std::size_t checked = 0;
    for (const auto& c : golden.at("commands")) {
        const auto& enc = c.at("encodings").at("JSON");
        for (const char* key : {"encode_hex", "wire_hex"}) {
            if (!enc.contains(key) || enc.at(key).is_null()) {  // wire_hex: null where it equals encode_hex
                continue;
            }
            const std::string frame = rmq_test::from_hex(enc.at(key).get<std::string>());
            const auto header_len = (static_cast<std::uint32_t>(static_cast<unsigned char>(frame[5])) << 16) |
                                    (static_cast<std::uint32_t>(static_cast<unsigned char>(frame[6])) << 8) |
                                    static_cast<std::uint32_t>(static_cast<unsigned char>(frame[7]));
            check_same_as_full_parser(frame.substr(8, header_len));
            ++checked;
        }
    }
    CHECK(checked >= 26);
}

}  // namespace json_header_test
