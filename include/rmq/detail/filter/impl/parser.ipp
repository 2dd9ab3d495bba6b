#pragma once

/// @file detail/filter/impl/parser.ipp
/// Definitions of detail/filter/parser.hpp.

#include <rmq/detail/filter/parser.hpp>

// Only the definitions need these.
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>

#include <rmq/detail/filter/lexer.hpp>

namespace rmq::detail::filter {

using NodePtr = std::shared_ptr<const Node>;

/// Recursive descent over the token list, one method per grammar rule (see parser.hpp).
class Parser {
public:
    explicit Parser(std::string_view expression)
        : expression_(expression)
        , tokens_(tokenize(expression)) {}

    NodePtr parse() {
        NodePtr root = or_expression();
        if (peek().kind != TokenKind::End) {
            fail(fmt::format("unexpected {} after a complete expression", describe(peek())));
        }
        return as_boolean(std::move(root));
    }

private:
    NodePtr or_expression() { return logic(TokenKind::Or, NodeKind::Or); }

    NodePtr and_expression() { return logic(TokenKind::And, NodeKind::And); }

    NodePtr equality();
    NodePtr comparison();
    NodePtr negatable(NodePtr left, TokenKind prefix);
    NodePtr between(const NodePtr& value, bool negated);
    NodePtr in_list(NodePtr left, bool negated);
    NodePtr unary();
    NodePtr primary();
    NodePtr logic(TokenKind op, NodeKind kind);
    NodePtr equal(NodePtr left, NodePtr right);
    NodePtr ordering(NodeKind kind, NodePtr left, NodePtr right);

    [[nodiscard]] const Token& peek(std::size_t ahead = 0) const {
        return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
    }

    const Token& next() {
        const Token& t = peek();
        pos_ = std::min(pos_ + 1, tokens_.size() - 1);
        return t;
    }

    bool accept(TokenKind kind) {
        if (peek().kind != kind) {
            return false;
        }
        next();
        return true;
    }

    void expect(TokenKind kind, std::string_view what) {
        if (!accept(kind)) {
            fail(fmt::format("expected {}, found {}", what, describe(peek())));
        }
    }

    std::string string_literal() {
        if (peek().kind != TokenKind::String) {
            fail(fmt::format("expected a string literal, found {}", describe(peek())));
        }
        return next().text;
    }

    [[noreturn]] void fail(std::string_view what) const {
        throw InvalidArgument(
            fmt::format("Invalid MessageSelector \"{}\": {} at offset {}", expression_, what, peek().offset));
    }

    std::shared_ptr<Node> make(NodeKind kind, std::vector<NodePtr> children, std::string text = {}) const;
    NodePtr constant(Value value, std::string text = {}) const;
    NodePtr as_boolean(NodePtr node) const;
    void check_ordered_operand(const Node& node) const;
    NodePtr decimal(const std::string& text) const;
    NodePtr floating(const std::string& text) const;

    std::string_view expression_;
    std::vector<Token> tokens_;
    std::size_t pos_ = 0;
    int nesting_ = 0;
};

RMQ_DECL std::shared_ptr<Node>
Parser::make(NodeKind kind, std::vector<NodePtr> children, std::string text) const {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->text = std::move(text);
    for (const auto& c : children) {
        n->depth = std::max(n->depth, c->depth + 1);
    }
    if (n->depth > max_depth) {
        fail(fmt::format("expression nested deeper than {} levels", max_depth));
    }
    n->children = std::move(children);
    return n;
}

RMQ_DECL NodePtr Parser::constant(Value value, std::string text) const {
    auto n = std::make_shared<Node>();
    n->kind = NodeKind::Constant;
    n->constant = value;
    n->text = std::move(text);
    return n;
}

/// asBooleanExpression: a property used as a condition is TRUE only if it were a Boolean (never, being a
/// String), anything else that is not boolean is an error.
RMQ_DECL NodePtr Parser::as_boolean(NodePtr node) const {
    if (node->is_boolean()) {
        return node;
    }
    if (node->kind == NodeKind::Property) {
        return make(NodeKind::BoolCast, {std::move(node)});
    }
    fail("expression will not result in a boolean value");
}

/// checkLessThanOperand: only numbers and non-boolean expressions in >, >=, <, <= and BETWEEN.
RMQ_DECL void Parser::check_ordered_operand(const Node& node) const {
    if (node.is_constant()) {
        const auto k = node.constant.kind;
        if (k != Value::Kind::Int && k != Value::Kind::Long && k != Value::Kind::Double) {
            fail("only numbers can be compared by >, >=, <, <= or BETWEEN");
        }
    } else if (node.is_boolean()) {
        fail("a condition cannot be compared by >, >=, <, <= or BETWEEN");
    }
}

/// ConstantExpression.createFromDecimal: a Long, narrowed to an Integer when it fits.
RMQ_DECL NodePtr Parser::decimal(const std::string& text) const {
    const auto v = java_parse_long(text, false);
    if (!v) {
        fail(fmt::format("number {} is out of the range of a long", text));
    }
    Value value;
    const bool fits_int =
        *v >= std::numeric_limits<std::int32_t>::min() && *v <= std::numeric_limits<std::int32_t>::max();
    value.kind = fits_int ? Value::Kind::Int : Value::Kind::Long;
    value.integer = *v;
    return constant(value);
}

/// ConstantExpression.createFloat: above Double.MAX_VALUE or below Double.MIN_VALUE (the smallest positive
/// double, so 0.0 too) is refused.
RMQ_DECL NodePtr Parser::floating(const std::string& text) const {
    const auto v = java_parse_double(text);
    if (!v || *v > std::numeric_limits<double>::max()) {
        fail(fmt::format("{} is greater than the largest double", text));
    }
    if (*v < std::numeric_limits<double>::denorm_min()) {
        fail(fmt::format("{} is less than the smallest positive double (write 0 for zero)", text));
    }
    Value value;
    value.kind = Value::Kind::Double;
    value.real = *v;
    return constant(value);
}

RMQ_DECL NodePtr Parser::logic(TokenKind op, NodeKind kind) {
    NodePtr first = op == TokenKind::Or ? and_expression() : equality();
    if (peek().kind != op) {
        return first;
    }
    std::vector<NodePtr> children{as_boolean(std::move(first))};
    while (accept(op)) {
        children.push_back(as_boolean(op == TokenKind::Or ? and_expression() : equality()));
    }
    return make(kind, std::move(children));
}

/// createEqual: no NULL literal on either side, and TRUE/FALSE = <non-boolean constant> is refused.
RMQ_DECL NodePtr Parser::equal(NodePtr left, NodePtr right) {
    for (const auto* n : {left.get(), right.get()}) {
        if (n->is_constant() && n->constant.kind == Value::Kind::Null) {
            fail("NULL cannot be compared by = or <> (use IS NULL)");
        }
    }
    if (left->is_constant() && right->is_constant() && left->is_boolean() && !right->is_boolean()) {
        fail("TRUE or FALSE cannot be compared with a number or string");
    }
    return make(NodeKind::Equal, {std::move(left), std::move(right)});
}

RMQ_DECL NodePtr Parser::equality() {
    NodePtr left = comparison();
    while (true) {
        if (accept(TokenKind::Equal)) {
            left = equal(std::move(left), comparison());
        } else if (accept(TokenKind::NotEqual)) {
            left = make(NodeKind::Not, {equal(std::move(left), comparison())});
        } else if (accept(TokenKind::Is)) {
            const bool negated = accept(TokenKind::Not);
            expect(TokenKind::Null, "NULL");
            left = make(NodeKind::Equal, {std::move(left), constant(Value::null())});
            if (negated) {
                left = make(NodeKind::Not, {std::move(left)});
            }
        } else {
            return left;
        }
    }
}

RMQ_DECL NodePtr Parser::ordering(NodeKind kind, NodePtr left, NodePtr right) {
    check_ordered_operand(*left);
    check_ordered_operand(*right);
    return make(kind, {std::move(left), std::move(right)});
}

RMQ_DECL NodePtr Parser::comparison() {
    NodePtr left = unary();
    while (true) {
        const TokenKind op = peek().kind;
        if (op == TokenKind::Greater || op == TokenKind::GreaterEqual || op == TokenKind::Less ||
            op == TokenKind::LessEqual) {
            next();
            const NodeKind kind = op == TokenKind::Greater        ? NodeKind::Greater
                                  : op == TokenKind::GreaterEqual ? NodeKind::GreaterEqual
                                  : op == TokenKind::Less         ? NodeKind::Less
                                                                  : NodeKind::LessEqual;
            left = ordering(kind, std::move(left), unary());
        } else if (op == TokenKind::Not) {
            const TokenKind after = peek(1).kind;
            if (after != TokenKind::Contains && after != TokenKind::StartsWith &&
                after != TokenKind::EndsWith && after != TokenKind::Between && after != TokenKind::In) {
                return left;  // not ours: the caller decides
            }
            next();
            left = negatable(std::move(left), TokenKind::Not);
        } else if (op == TokenKind::Contains || op == TokenKind::StartsWith || op == TokenKind::EndsWith ||
                   op == TokenKind::Between || op == TokenKind::In) {
            left = negatable(std::move(left), TokenKind::End);
        } else {
            return left;
        }
    }
}

/// The operators that take an optional NOT before them; `prefix` is Not when it was just consumed.
RMQ_DECL NodePtr Parser::negatable(NodePtr left, TokenKind prefix) {
    const bool negated = prefix == TokenKind::Not;
    const TokenKind op = next().kind;
    switch (op) {
    case TokenKind::Between:
        return between(left, negated);
    case TokenKind::In:
        return in_list(std::move(left), negated);
    case TokenKind::Contains:
        return make(
            negated ? NodeKind::NotContains : NodeKind::Contains, {std::move(left)}, string_literal());
    case TokenKind::StartsWith:
        return make(
            negated ? NodeKind::NotStartsWith : NodeKind::StartsWith, {std::move(left)}, string_literal());
    default:
        return make(
            negated ? NodeKind::NotEndsWith : NodeKind::EndsWith, {std::move(left)}, string_literal());
    }
}

/// createBetween (value >= low AND value <= high; constant bounds must be in order) and createNotBetween
/// (value < low OR value > high).
RMQ_DECL NodePtr Parser::between(const NodePtr& value, bool negated) {
    NodePtr low = unary();
    expect(TokenKind::And, "AND");
    NodePtr high = unary();
    if (!negated && low->is_constant() && high->is_constant()) {
        if (low->constant.kind == Value::Kind::Null || high->constant.kind == Value::Kind::Null) {
            fail("the bounds of BETWEEN cannot be NULL");
        }
        Value lv = low->constant;
        Value hv = high->constant;
        lv.text = low->text;
        hv.text = high->text;
        const auto c = java_compare(hv, lv);
        if (!c || *c < 0) {
            fail("the low bound of BETWEEN must be less than or equal to the high bound");
        }
    }
    if (negated) {
        return make(NodeKind::Or,
                    {ordering(NodeKind::Less, value, std::move(low)),
                     ordering(NodeKind::Greater, value, std::move(high))});
    }
    return make(NodeKind::And,
                {ordering(NodeKind::GreaterEqual, value, std::move(low)),
                 ordering(NodeKind::LessEqual, value, std::move(high))});
}

RMQ_DECL NodePtr Parser::in_list(NodePtr left, bool negated) {
    if (left->kind != NodeKind::Property) {
        fail("IN applies to a property only");
    }
    expect(TokenKind::LParen, "'('");
    std::vector<std::string> list{string_literal()};
    while (accept(TokenKind::Comma)) {
        list.push_back(string_literal());
    }
    expect(TokenKind::RParen, "')'");
    auto n = make(negated ? NodeKind::NotIn : NodeKind::In, {std::move(left)});
    n->list = std::move(list);
    return n;
}

RMQ_DECL NodePtr Parser::unary() {
    if (++nesting_ > max_depth) {
        fail(fmt::format("expression nested deeper than {} levels", max_depth));
    }
    NodePtr result;
    if (accept(TokenKind::Plus)) {
        result = unary();
    } else if (accept(TokenKind::Minus)) {
        result = make(NodeKind::Negate, {unary()});
    } else if (accept(TokenKind::Not)) {
        result = make(NodeKind::Not, {as_boolean(unary())});
    } else {
        result = primary();
    }
    --nesting_;
    return result;
}

RMQ_DECL NodePtr Parser::primary() {
    const Token& t = peek();
    switch (t.kind) {
    case TokenKind::String: {
        Value v;
        v.kind = Value::Kind::String;
        return constant(v, next().text);
    }
    case TokenKind::Decimal:
        return decimal(next().text);
    case TokenKind::Float:
        return floating(next().text);
    case TokenKind::True:
    case TokenKind::False:
        return constant(Value::of(next().kind == TokenKind::True));
    case TokenKind::Null:
        next();
        return constant(Value::null());
    case TokenKind::Identifier:
        return make(NodeKind::Property, {}, next().text);
    case TokenKind::LParen: {
        next();
        NodePtr inner = or_expression();
        expect(TokenKind::RParen, "')'");
        return inner;
    }
    default:
        fail(fmt::format("unexpected {}", describe(t)));
    }
}

RMQ_DECL bool SqlExpression::matches(const Message& message) const {
    const auto v = evaluate(*root_, message);
    return v && v->kind == Value::Kind::Bool && v->boolean;
}

RMQ_DECL SqlExpression compile(std::string_view expression) {
    return SqlExpression(Parser(expression).parse());
}

}  // namespace rmq::detail::filter
