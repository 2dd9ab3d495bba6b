// Pull bodies (back-to-back message records, compressed bodies included, inner batches unwrapped), batch
// bodies and properties strings.

#include <span>
#include <string>

#include "fuzz_support.hpp"

#include <rmq/message.hpp>
#include <rmq/remoting/message_codec.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rmq::remoting;
    // decode_messages reports damage instead of throwing.
    MessageDecodeReport report;
    MessageDecodeOptions options;
    options.max_decompressed_total = 64U << 20;  // keeps libFuzzer's RSS limit for real findings
    const auto msgs = decode_messages(rmq_fuzz::bytes(data, size), &report, options);
    rmq_fuzz::expect_codec([&] { (void)unwrap_inner_batches(msgs); });
    rmq::MessageExt wrapped;  // the input as the body of an inner-batch record
    wrapped.set_sys_flag(message_sys_flag::inner_batch | message_sys_flag::need_unwrap);
    wrapped.set_body(std::string(rmq_fuzz::text(data, size)));
    rmq_fuzz::expect_codec(
        [&] { (void)unwrap_inner_batches(std::span<const rmq::MessageExt>(&wrapped, 1)); });
    rmq_fuzz::expect_codec([&] { (void)decode_batch_messages(rmq_fuzz::bytes(data, size)); });
    rmq_fuzz::expect_codec([&] { (void)decode_message_id(rmq_fuzz::text(data, size)); });
    (void)rmq::decode_properties(rmq_fuzz::text(data, size));
    return 0;
}
