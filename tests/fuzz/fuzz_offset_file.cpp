// The broadcasting offsets file (offsets.json), which may be damaged on disk.

#include "fuzz_support.hpp"

#include <rmq/error.hpp>
#include <rmq/offset_store/local_file.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const auto table = rmq::detail::parse_offset_file(rmq_fuzz::text(data, size));
        // What is read must be written and read back unchanged.
        if (rmq::detail::parse_offset_file(rmq::detail::format_offset_file(table)) != table) {
            __builtin_trap();
        }
    } catch (const rmq::Error&) {
    }
    return 0;
}
