#pragma once

/// @file remoting/headers/fields.hpp
/// The field machinery of the typed request/response headers ("custom headers"): converted to and from
/// RemotingCommand ext fields the way Java's makeCustomHeaderToNet / decodeCommandCustomHeader do: every
/// value is text (String.valueOf), absent optional fields are not sent. Field order follows the Java classes
/// (FastCodesHeader encode() order where Java has one), so ROCKETMQ binary frames match what a Java peer
/// writes.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include <rmq/remoting/codec_error.hpp>
#include <rmq/remoting/command.hpp>

namespace rmq::remoting {

namespace detail {

template <class T>
struct IsOptional : std::false_type {};

template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

inline std::string header_text(const std::string& v) {
    return v;
}

inline std::string header_text(bool v) {
    return v ? "true" : "false";
}

template <class Int>
requires std::is_integral_v<Int>
std::string header_text(Int v) {
    return fmt::format("{}", v);
}

/// Appends fields to ext fields (String.valueOf; null optional fields skipped).
struct HeaderWriter {
    ExtFields& out;

    template <class T>
    void operator()(std::string_view key, const T& value) const {
        if constexpr (IsOptional<T>::value) {
            if (value) {
                out.set(key, header_text(*value));
            }
        } else {
            out.set(key, header_text(value));
        }
    }
};

/// Reads fields from ext fields: non-optional fields are required ("the custom field <x> is null", as Java's
/// @CFNotNull check says), numbers parse like Integer/Long.parseLong, booleans like Boolean.parseBoolean.
struct HeaderReader {
    const ExtFields& in;
    std::string_view header;

    template <class T>
    void operator()(std::string_view key, T& value) const {
        const auto text = in.get(key);
        if constexpr (IsOptional<T>::value) {
            if (text) {
                typename T::value_type v{};
                parse(key, *text, v);
                value = std::move(v);
            } else {
                value.reset();
            }
        } else {
            if (!text) {
                throw CodecError(fmt::format("{}: the custom field <{}> is null", header, key));
            }
            parse(key, *text, value);
        }
    }

    void parse(std::string_view /*key*/, std::string_view text, std::string& v) const {
        v = std::string(text);
    }

    void parse(std::string_view /*key*/, std::string_view text, bool& v) const {
        v = text.size() == 4 && (text[0] == 't' || text[0] == 'T') && (text[1] == 'r' || text[1] == 'R') &&
            (text[2] == 'u' || text[2] == 'U') && (text[3] == 'e' || text[3] == 'E');
    }

    template <class Int>
    requires std::is_integral_v<Int>
    void parse(std::string_view key, std::string_view text, Int& v) const {
        std::string_view digits = text;
        if (!digits.empty() && digits.front() == '+') {
            digits.remove_prefix(1);  // Java's parseInt accepts a leading '+'
        }
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty()) {
            throw CodecError(fmt::format(
                "{}: field <{}> = \"{}\" is not a valid {}-bit integer", header, key, text, sizeof(Int) * 8));
        }
    }
};

}  // namespace detail

/// The ext fields of a typed header (makeCustomHeaderToNet), in the header's field order.
template <class Header>
ExtFields to_ext_fields(const Header& header) {
    ExtFields out;
    Header::fields(header, detail::HeaderWriter{out});
    return out;
}

/// Appends a typed header's fields to existing ext fields (e.g. after fields a broker adds itself).
template <class Header>
void append_ext_fields(ExtFields& out, const Header& header) {
    Header::fields(header, detail::HeaderWriter{out});
}

/// Decodes a typed header from ext fields (decodeCommandCustomHeader). Throws CodecError when a required
/// field is missing or a number does not parse.
template <class Header>
Header from_ext_fields(const ExtFields& fields) {
    Header h{};
    Header::fields(h, detail::HeaderReader{fields, Header::java_name});
    return h;
}

/// The typed header of a received command (absent ext fields read as an empty map).
template <class Header>
Header header_of(const Command& cmd) {
    static const ExtFields empty;
    return from_ext_fields<Header>(cmd.ext_fields ? *cmd.ext_fields : empty);
}

/// A request command carrying `header` (opaque is the transport's business).
template <class Header>
Command make_request(std::int32_t code, const Header& header, std::string body = {}) {
    Command cmd;
    cmd.code = code;
    cmd.ext_fields = to_ext_fields(header);
    cmd.body = std::move(body);
    return cmd;
}

}  // namespace rmq::remoting
