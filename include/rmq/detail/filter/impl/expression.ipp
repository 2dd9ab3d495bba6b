#pragma once

/// @file detail/filter/impl/expression.ipp
/// Definitions of detail/filter/expression.hpp.

#include <rmq/detail/filter/expression.hpp>

// Only the definitions need these.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <locale.h>  // newlocale, strtod_l (POSIX)

namespace rmq::detail::filter {

/// strtod in the "C" locale, whatever the program's locale: the text is plain ASCII, '.' its decimal point.
inline double c_locale_strtod(std::string_view s) {
    static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
    return strtod_l(std::string(s).c_str(), nullptr, c_locale);
}

RMQ_DECL bool Node::is_boolean() const noexcept {
    switch (kind) {
    case NodeKind::Constant:
        // BooleanConstantExpression: TRUE, FALSE and NULL.
        return constant.kind == Value::Kind::Bool || constant.kind == Value::Kind::Null;
    case NodeKind::Property:
    case NodeKind::Negate:
        return false;
    default:
        return true;
    }
}

RMQ_DECL std::optional<std::int64_t> java_parse_long(std::string_view s, bool as_int) noexcept {
    bool negative = false;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    if (s.empty()) {
        return std::nullopt;
    }
    // Accumulate negatively so that the minimum value fits (Java's Long.parseLong).
    const std::int64_t max = as_int ? std::int64_t{std::numeric_limits<std::int32_t>::max()}
                                    : std::numeric_limits<std::int64_t>::max();
    const std::int64_t limit = negative ? -max - 1 : -max;
    const std::int64_t mult_min = limit / 10;
    std::int64_t v = 0;
    for (const char c : s) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        const int digit = c - '0';
        if (v < mult_min) {
            return std::nullopt;
        }
        v *= 10;
        if (v < limit + digit) {
            return std::nullopt;
        }
        v -= digit;
    }
    return negative ? v : -v;
}

RMQ_DECL std::optional<double> java_parse_double(std::string_view s) noexcept {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) {
        s.remove_prefix(1);
    }
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) {
        s.remove_suffix(1);
    }
    bool negative = false;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    const double sign = negative ? -1.0 : 1.0;
    if (s == "NaN") {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (s == "Infinity") {
        return sign * std::numeric_limits<double>::infinity();
    }
    if (!s.empty() && (s.back() == 'f' || s.back() == 'F' || s.back() == 'd' || s.back() == 'D')) {
        s.remove_suffix(1);
    }
    // Digits with an optional point (at least one digit), then an optional exponent.
    std::size_t i = 0;
    std::size_t digits = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
    }
    if (i < s.size() && s[i] == '.') {
        for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
        }
    }
    if (digits == 0) {
        return std::nullopt;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) {
            ++j;
        }
        const std::size_t exp_digits = j;
        for (; j < s.size() && s[j] >= '0' && s[j] <= '9'; ++j) {
        }
        if (j == exp_digits) {
            return std::nullopt;
        }
        i = j;
    }
    if (i != s.size()) {
        return std::nullopt;
    }
    double v = 0;
#if defined(_LIBCPP_VERSION)
    // libc++ (16) has no floating-point std::from_chars; the text was validated above.
    v = c_locale_strtod(s);
#else
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range) {
        // Overflow is Infinity and underflow zero in Java; strtod says which.
        v = c_locale_strtod(s);
    } else if (ec != std::errc{} || ptr != s.data() + s.size()) {
        return std::nullopt;
    }
#endif
    return sign * v;
}

/// Double.compare: NaN above everything and equal to itself, -0.0 below 0.0.
inline int compare_doubles(double a, double b) noexcept {
    if (a < b) {
        return -1;
    }
    if (a > b) {
        return 1;
    }
    const bool an = std::isnan(a);
    const bool bn = std::isnan(b);
    if (an || bn) {
        return an == bn ? 0 : (an ? 1 : -1);
    }
    return std::signbit(a) == std::signbit(b) ? 0 : (std::signbit(a) ? -1 : 1);
}

template <class T>
int three_way(T a, T b) noexcept {
    return a < b ? -1 : (a > b ? 1 : 0);
}

inline bool is_integral(Value::Kind k) noexcept {
    return k == Value::Kind::Int || k == Value::Kind::Long;
}

inline double as_double(const Value& v) noexcept {
    return v.kind == Value::Kind::Double ? v.real : static_cast<double>(v.integer);
}

/// compareTo of two values of one kind.
inline int same_kind(const Value& a, const Value& b) noexcept {
    switch (a.kind) {
    case Value::Kind::Bool:
        return three_way(a.boolean, b.boolean);
    case Value::Kind::Int:
    case Value::Kind::Long:
        return three_way(a.integer, b.integer);
    case Value::Kind::Double:
        return compare_doubles(a.real, b.real);
    case Value::Kind::String:
        return a.text.compare(b.text) < 0 ? -1 : (a.text == b.text ? 0 : 1);
    default:
        return 0;
    }
}

/// A String converted to the kind of `target` (Boolean.valueOf, Integer/Long/Double.valueOf).
inline std::optional<Value> convert_string(std::string_view s, Value::Kind target) noexcept {
    Value v;
    v.kind = target;
    switch (target) {
    case Value::Kind::Bool: {
        // Boolean.valueOf: "true" in any case, anything else false.
        v.boolean = s.size() == 4 && (s[0] | 0x20) == 't' && (s[1] | 0x20) == 'r' && (s[2] | 0x20) == 'u' &&
                    (s[3] | 0x20) == 'e';
        return v;
    }
    case Value::Kind::Int:
    case Value::Kind::Long: {
        const auto n = java_parse_long(s, target == Value::Kind::Int);
        if (!n) {
            return std::nullopt;
        }
        v.integer = *n;
        return v;
    }
    case Value::Kind::Double: {
        const auto d = java_parse_double(s);
        if (!d) {
            return std::nullopt;
        }
        v.real = *d;
        return v;
    }
    default:
        return std::nullopt;
    }
}

RMQ_DECL std::optional<int> java_compare(Value lv, Value rv) noexcept {
    using K = Value::Kind;
    if (lv.kind == rv.kind || (is_integral(lv.kind) && is_integral(rv.kind))) {
        return same_kind(lv, rv);
    }
    if (lv.kind == K::Bool) {
        // Java casts the Boolean itself to String here: ClassCastException.
        return rv.kind == K::String ? std::nullopt : std::optional<int>(-1);
    }
    if (rv.kind == K::Bool && lv.kind != K::String) {
        return -1;  // a number against a Boolean
    }
    if (lv.kind == K::String) {
        const auto converted = convert_string(lv.text, rv.kind);
        if (!converted) {
            return std::nullopt;
        }
        return java_compare(*converted, rv);
    }
    if (rv.kind == K::String) {
        const auto converted = convert_string(rv.text, lv.kind);
        if (!converted) {
            return std::nullopt;
        }
        return java_compare(lv, *converted);
    }
    // A number against a number of another kind: both as double.
    return compare_doubles(as_double(lv), as_double(rv));
}

using Eval = std::optional<Value>;

/// A comparison's answer from a three-way result.
inline bool holds(NodeKind kind, int c) noexcept {
    switch (kind) {
    case NodeKind::Equal:
        return c == 0;
    case NodeKind::Greater:
        return c > 0;
    case NodeKind::GreaterEqual:
        return c >= 0;
    case NodeKind::Less:
        return c < 0;
    default:
        return c <= 0;
    }
}

/// doCreateEqual: NULL = NULL is TRUE, NULL = x unknown, x = NULL FALSE.
inline Eval equal(const Node& n, const Message& m) {
    const Eval lv = evaluate(*n.children[0], m);
    if (!lv) {
        return std::nullopt;
    }
    const Eval rv = evaluate(*n.children[1], m);
    if (!rv) {
        return std::nullopt;
    }
    const bool ln = lv->kind == Value::Kind::Null;
    const bool rn = rv->kind == Value::Kind::Null;
    if (ln || rn) {
        return ln && rn ? Value::of(true) : (ln ? Value::null() : Value::of(false));
    }
    const auto c = java_compare(*lv, *rv);
    if (!c) {
        return std::nullopt;
    }
    return Value::of(*c == 0);
}

/// >, >=, <, <=: NULL on either side is unknown; two Strings compare as doubles (or the evaluation fails).
inline Eval ordering(const Node& n, const Message& m) {
    const Eval lv = evaluate(*n.children[0], m);
    if (!lv || lv->kind == Value::Kind::Null) {
        return lv;
    }
    const Eval rv = evaluate(*n.children[1], m);
    if (!rv || rv->kind == Value::Kind::Null) {
        return rv;
    }
    std::optional<int> c;
    if (lv->kind == Value::Kind::String && rv->kind == Value::Kind::String) {
        const auto a = java_parse_double(lv->text);
        const auto b = java_parse_double(rv->text);
        if (a && b) {
            c = compare_doubles(*a, *b);
        }
    } else {
        c = java_compare(*lv, *rv);
    }
    if (!c) {
        return std::nullopt;
    }
    return Value::of(holds(n.kind, *c));
}

/// AND / OR folded left, each step as Java's LogicExpression (short-circuit, NULL is unknown).
inline Eval logic(const Node& n, const Message& m) {
    const bool is_and = n.kind == NodeKind::And;
    Eval acc = evaluate(*n.children[0], m);
    for (std::size_t i = 1; i < n.children.size(); ++i) {
        if (!acc) {
            return acc;
        }
        const bool acc_null = acc->kind == Value::Kind::Null;
        if (!acc_null && acc->boolean != is_and) {
            continue;  // FALSE for AND, TRUE for OR: decided
        }
        const Eval rv = evaluate(*n.children[i], m);
        if (!rv) {
            return rv;
        }
        const bool rv_null = rv->kind == Value::Kind::Null;
        if (!rv_null && rv->boolean != is_and) {
            acc = rv;
        } else if (acc_null || rv_null) {
            acc = Value::null();
        } else {
            acc = Value::of(is_and);
        }
    }
    return acc;
}

/// CONTAINS / STARTSWITH / ENDSWITH and their NOT forms: an empty search, NULL or a non-String is FALSE.
inline Eval text_match(const Node& n, const Message& m) {
    if (n.text.empty()) {
        return Value::of(false);
    }
    const Eval rv = evaluate(*n.children[0], m);
    if (!rv || rv->kind != Value::Kind::String) {
        return rv ? Eval(Value::of(false)) : rv;
    }
    const std::string_view s = rv->text;
    bool found = false;
    bool negated = false;
    switch (n.kind) {
    case NodeKind::Contains:
    case NodeKind::NotContains:
        found = s.find(n.text) != std::string_view::npos;
        negated = n.kind == NodeKind::NotContains;
        break;
    case NodeKind::StartsWith:
    case NodeKind::NotStartsWith:
        found = s.starts_with(n.text);
        negated = n.kind == NodeKind::NotStartsWith;
        break;
    default:
        found = s.ends_with(n.text);
        negated = n.kind == NodeKind::NotEndsWith;
        break;
    }
    return Value::of(found != negated);
}

/// Unary minus, NOT and the boolean cast of a property.
inline Eval unary(const Node& n, const Message& m) {
    Eval v = evaluate(*n.children[0], m);
    if (!v || v->kind == Value::Kind::Null) {
        return v;
    }
    switch (n.kind) {
    case NodeKind::Negate:
        if (v->kind == Value::Kind::Int) {
            v->integer = static_cast<std::int32_t>(-static_cast<std::uint32_t>(v->integer));
        } else if (v->kind == Value::Kind::Long) {
            v->integer = static_cast<std::int64_t>(-static_cast<std::uint64_t>(v->integer));
        } else if (v->kind == Value::Kind::Double) {
            v->real = -v->real;
        } else {
            return Value::null();  // not a Number
        }
        return v;
    case NodeKind::Not:
        if (v->kind != Value::Kind::Bool) {
            return std::nullopt;  // ClassCastException
        }
        return Value::of(!v->boolean);
    default:  // BoolCast
        return v->kind == Value::Kind::Bool ? v : Eval(Value::of(false));
    }
}

RMQ_DECL std::optional<Value> evaluate(const Node& node, const Message& message) {
    switch (node.kind) {
    case NodeKind::Constant: {
        Value v = node.constant;
        if (v.kind == Value::Kind::String) {
            v.text = node.text;
        }
        return v;
    }
    case NodeKind::Property: {
        // An empty value is absent: Java clients refuse to set one, and the properties decoding on the wire
        // (MessageDecoder.string2messageProperties) drops it before any broker evaluates.
        const std::string_view value = message.property_view(node.text);
        if (value.empty()) {
            return Value::null();
        }
        return Value{Value::Kind::String, false, 0, 0, value};
    }
    case NodeKind::And:
    case NodeKind::Or:
        return logic(node, message);
    case NodeKind::Equal:
        return equal(node, message);
    case NodeKind::Greater:
    case NodeKind::GreaterEqual:
    case NodeKind::Less:
    case NodeKind::LessEqual:
        return ordering(node, message);
    case NodeKind::In:
    case NodeKind::NotIn: {
        const Eval rv = evaluate(*node.children[0], message);
        if (!rv || rv->kind != Value::Kind::String) {
            return rv ? Eval(Value::null()) : rv;
        }
        const bool found = std::find(node.list.begin(), node.list.end(), rv->text) != node.list.end();
        return Value::of(found != (node.kind == NodeKind::NotIn));
    }
    case NodeKind::Negate:
    case NodeKind::Not:
    case NodeKind::BoolCast:
        return unary(node, message);
    default:
        return text_match(node, message);
    }
}

}  // namespace rmq::detail::filter
