// Subscription expressions (TAG `a || b`, SQL92 passed through), as a broker's heartbeat answer or a user's
// configuration gives them.

#include "fuzz_support.hpp"

#include <rmq/error.hpp>
#include <rmq/subscription.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view in = rmq_fuzz::text(data, size);
    const std::size_t cut = in.find('\n');
    const std::string_view type = cut == std::string_view::npos ? std::string_view("TAG") : in.substr(0, cut);
    const std::string_view expr = cut == std::string_view::npos ? in : in.substr(cut + 1);
    try {
        (void)rmq::parse_subscription("T", expr, type);
    } catch (const rmq::Error&) {
    }
    (void)rmq::tag_hash(expr);
    return 0;
}
