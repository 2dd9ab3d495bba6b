#pragma once

/// @file detail/filter/expression.hpp
/// The compiled form of an SQL92 selector and its evaluation with rocketmq-filter's semantics: values are
/// Java's NULL / Boolean / Integer / Long / Double / String; a property is the String of the message
/// property or NULL when absent (an empty value counts as absent: it does not survive the wire); comparisons
/// of mixed types convert as ComparisonExpression does (a String against a number is parsed as that number);
/// logic is three-valued (NULL is unknown). An evaluation that throws in Java (a String that does not parse
/// as the number it is compared with) is an error here: the message does not match, as
/// ExpressionMessageFilter.isMatchedByCommitLog answers.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message.hpp>

namespace rmq::detail::filter {

/// A Java value during evaluation. Strings are views (into the message or the expression).
struct Value {
    enum class Kind : std::uint8_t { Null, Bool, Int, Long, Double, String };
    Kind kind = Kind::Null;
    bool boolean = false;
    std::int64_t integer = 0;  ///< Int and Long
    double real = 0;
    std::string_view text;

    static Value null() noexcept { return {}; }

    static Value of(bool b) noexcept { return {Kind::Bool, b, 0, 0, {}}; }
};

enum class NodeKind {
    Constant,
    Property,
    Negate,
    Not,
    BoolCast,
    And,  ///< n-ary, folded left like Java's nested createAND
    Or,   ///< n-ary, folded left like Java's nested createOR
    Equal,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
    In,
    NotIn,
    Contains,
    NotContains,
    StartsWith,
    NotStartsWith,
    EndsWith,
    NotEndsWith,
};

struct Node {
    NodeKind kind = NodeKind::Constant;
    /// Constant: its kind and number/boolean (text holds a string constant).
    Value constant;
    /// Property name, string constant, or the search string of CONTAINS/STARTSWITH/ENDSWITH.
    std::string text;
    /// IN list.
    std::vector<std::string> list;
    std::vector<std::shared_ptr<const Node>> children;
    /// Longest path to a leaf (1 for a leaf); bounded by the parser.
    int depth = 1;

    /// Java's `instanceof BooleanExpression`.
    [[nodiscard]] bool is_boolean() const noexcept;

    /// Java's `instanceof ConstantExpression`.
    [[nodiscard]] bool is_constant() const noexcept { return kind == NodeKind::Constant; }
};

/// Java's Integer.parseInt / Long.parseLong / Double.parseDouble of a property value (nullopt when Java
/// throws NumberFormatException). Double: decimal forms, NaN, Infinity, an f/d suffix; not hex floats.
std::optional<std::int64_t> java_parse_long(std::string_view s, bool as_int) noexcept;
std::optional<double> java_parse_double(std::string_view s) noexcept;

/// ComparisonExpression.__compare with string conversion on; nullopt when Java throws.
std::optional<int> java_compare(Value lv, Value rv) noexcept;

/// The value of `node` over `message`'s properties; nullopt when Java's evaluation throws.
std::optional<Value> evaluate(const Node& node, const Message& message);

}  // namespace rmq::detail::filter

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/filter/impl/expression.ipp>
#endif
