// Every JSON body the client parses; the first byte picks the decoder, the rest is the body.

#include "fuzz_support.hpp"

#include <rmq/remoting/bodies.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rmq::remoting;
    if (size == 0) {
        return 0;
    }
    const std::string_view body = rmq_fuzz::text(data + 1, size - 1);
    rmq_fuzz::expect_codec([&] {
        switch (data[0] % 6) {
        case 0:
            (void)to_topic_route("T", decode_topic_route_data(body));
            break;
        case 1:
            (void)decode_consumer_list(body);
            break;
        case 2:
            (void)decode_heartbeat_data(body);
            break;
        case 3:
            (void)decode_lock_batch_request(body);
            break;
        case 4:
            (void)decode_lock_batch_response(body);
            break;
        default:
            (void)decode_reset_offset_body(body);
            break;
        }
    });
    return 0;
}
