// SQL92 selectors (a user's subscribe, a pull's or heartbeat's subString on the embedded broker): compile,
// then evaluate over a message whose properties the input's first line gives ("k=v;k=v"). Rejection only
// by rmq::InvalidArgument; evaluation never throws.

#include "fuzz_support.hpp"

#include <rmq/error.hpp>
#include <rmq/message.hpp>

#include <rmq/detail/filter/parser.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view in = rmq_fuzz::text(data, size);
    const std::size_t cut = in.find('\n');
    const std::string_view props = cut == std::string_view::npos ? std::string_view() : in.substr(0, cut);
    const std::string_view expr = cut == std::string_view::npos ? in : in.substr(cut + 1);
    rmq::Message m("T", "body");
    std::string_view rest = props;
    while (!rest.empty()) {
        const std::size_t end = rest.find(';');
        const std::string_view kv = rest.substr(0, end);
        const std::size_t eq = kv.find('=');
        if (eq != std::string_view::npos) {
            m.set_property(kv.substr(0, eq), kv.substr(eq + 1));
        }
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
    try {
        const auto compiled = rmq::detail::filter::compile(expr);
        (void)compiled.matches(m);
    } catch (const rmq::InvalidArgument&) {
    }
    return 0;
}
