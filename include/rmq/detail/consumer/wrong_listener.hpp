#pragma once

/// @file detail/consumer/wrong_listener.hpp
/// The diagnostic of a listener that does not fit its order policy: a static_assert inside a template whose
/// arguments are the policy and the text of its listener_signature, so the compiler's "required from" line
/// names both (a static_assert message itself must be a literal).

#include <cstddef>
#include <string_view>

namespace rmq::detail {

/// A string usable as a template argument.
template <std::size_t N>
struct Text {
    char chars[N + 1] = {};  // NOLINT(cppcoreguidelines-avoid-c-arrays): a structural type needs an array

    constexpr explicit Text(std::string_view text) {
        for (std::size_t i = 0; i < N && i < text.size(); ++i) {
            chars[i] = text[i];
        }
    }
};

template <class Order, auto ExpectedListener>
struct WrongListener {
    static_assert(
        sizeof(Order) == 0,
        "rmq::Consumer::register_listener: wrong listener for this order policy; the policy expects "
        "the ExpectedListener signature shown in the WrongListener<Order, ExpectedListener> line "
        "above (its listener_signature)");
};

}  // namespace rmq::detail
