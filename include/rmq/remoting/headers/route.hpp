#pragma once

/// @file remoting/headers/route.hpp
/// GET_ROUTEINFO_BY_TOPIC, to the NameServer.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rmq/protocol.hpp>
#include <rmq/remoting/headers/fields.hpp>

namespace rmq::remoting {

/// GET_ROUTEINFO_BY_TOPIC (105) request header (to the NameServer).
struct GetRouteInfoRequestHeader {
    static constexpr std::string_view java_name = "GetRouteInfoRequestHeader";
    std::string topic;
    /// true: 4.9.4+ NameServers answer with standard JSON (quoted map keys).
    std::optional<bool> accept_standard_json_only;

    template <class Self, class V>
    static void fields(Self& s, V&& v) {
        v("topic", s.topic);
        v("acceptStandardJsonOnly", s.accept_standard_json_only);
    }
};

}  // namespace rmq::remoting
