#pragma once

/// @file detail/filter/parser.hpp
/// rocketmq-filter's SelectorParser grammar (lowest precedence first):
///
///     or         := and (OR and)*
///     and        := equality (AND equality)*
///     equality   := comparison ('=' comparison | '<>' comparison | IS NULL | IS NOT NULL)*
///     comparison := unary ('>' unary | '>=' unary | '<' unary | '<=' unary
///                        | [NOT] BETWEEN unary AND unary | [NOT] IN '(' string (',' string)* ')'
///                        | [NOT] CONTAINS string | [NOT] STARTSWITH string | [NOT] ENDSWITH string)*
///     unary      := '+' unary | '-' unary | NOT unary | primary
///     primary    := string | decimal | float | TRUE | FALSE | NULL | identifier | '(' or ')'
///
/// with Java's build-time checks (only numbers and non-boolean expressions in >, >=, <, <= and BETWEEN; no
/// NULL literal in = and <>; IN on a property only; constant BETWEEN bounds in order; a boolean result).
/// Unlike Java, which silently ignores whatever follows a complete expression, trailing input is an error,
/// and nesting is bounded (max_depth) so hostile input cannot exhaust the stack.

#include <memory>
#include <string_view>

#include <rmq/config.hpp>
#include <rmq/message.hpp>

#include <rmq/detail/filter/expression.hpp>

namespace rmq::detail::filter {

/// Deepest expression tree (and parser recursion) accepted.
inline constexpr int max_depth = 100;

/// A compiled selector.
class SqlExpression {
public:
    explicit SqlExpression(std::shared_ptr<const Node> root) noexcept
        : root_(std::move(root)) {}

    /// ExpressionMessageFilter.isMatchedByCommitLog: matched only when the evaluation gives TRUE (NULL,
    /// FALSE or a failed evaluation are not matched).
    [[nodiscard]] bool matches(const Message& message) const;

    [[nodiscard]] const Node& root() const noexcept { return *root_; }

private:
    std::shared_ptr<const Node> root_;
};

/// SqlFilter.compile. Throws rmq::InvalidArgument ("Invalid MessageSelector ...") on a lexical or syntax
/// error, a check Java makes while building, or nesting deeper than max_depth.
SqlExpression compile(std::string_view expression);

}  // namespace rmq::detail::filter

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/filter/impl/parser.ipp>
#endif
