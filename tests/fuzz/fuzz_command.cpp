// The remoting frame decoder (JSON and ROCKETMQ header serializations) and the typed headers a client reads
// from a decoded command.

#include "fuzz_support.hpp"

#include <rmq/remoting/command.hpp>
#include <rmq/remoting/headers.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rmq::remoting;
    rmq_fuzz::expect_codec([&] {
        const Command cmd = decode_payload(rmq_fuzz::bytes(data, size));
        rmq_fuzz::expect_codec([&] { (void)header_of<PullMessageResponseHeader>(cmd); });
        rmq_fuzz::expect_codec([&] { (void)header_of<OffsetResponseHeader>(cmd); });
        rmq_fuzz::expect_codec([&] { (void)header_of<SendMessageResponseHeader>(cmd); });
        rmq_fuzz::expect_codec([&] { (void)header_of<ResetOffsetRequestHeader>(cmd); });
        rmq_fuzz::expect_codec([&] { (void)header_of<GetConsumerRunningInfoRequestHeader>(cmd); });
        // What is decoded must encode again (both serializations).
        (void)encode(cmd, SerializeType::Json);
        (void)encode(cmd, SerializeType::RocketMQ);
    });
    return 0;
}
