#pragma once

/// @file detail/filter/lexer.hpp
/// Tokens of RocketMQ's SQL92 message selectors (rocketmq-filter's SelectorParser grammar): keywords and
/// identifiers are ASCII and case-insensitive, string literals are single-quoted with '' for a quote,
/// `--` line comments (ended by a line break) and `/* */` block comments are skipped.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <rmq/config.hpp>

namespace rmq::detail::filter {

enum class TokenKind {
    End,
    Identifier,
    String,   ///< text holds the decoded value
    Decimal,  ///< text holds the digits without an l/L suffix
    Float,
    Not,
    And,
    Or,
    Between,
    In,
    True,
    False,
    Null,
    Is,
    Contains,
    StartsWith,
    EndsWith,
    LParen,
    RParen,
    Comma,
    Equal,
    NotEqual,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
    Plus,
    Minus,
};

struct Token {
    TokenKind kind = TokenKind::End;
    std::string text;
    /// Offset of the token's first character in the expression.
    std::size_t offset = 0;
};

/// A printable name of a token for error messages.
std::string describe(const Token& token);

/// The tokens of `expression`, ending with an End token. Throws rmq::InvalidArgument on a character no token
/// starts with, an unterminated string or comment.
std::vector<Token> tokenize(std::string_view expression);

}  // namespace rmq::detail::filter

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/filter/impl/lexer.ipp>
#endif
