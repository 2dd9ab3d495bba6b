#pragma once

/// @file detail/filter/impl/lexer.ipp
/// Definitions of detail/filter/lexer.hpp.

#include <rmq/detail/filter/lexer.hpp>

// Only the definitions need these.
#include <array>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>

namespace rmq::detail::filter {

inline bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

inline bool is_id_start(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

inline bool is_id_part(char c) noexcept {
    return is_id_start(c) || is_digit(c);
}

inline char upper(char c) noexcept {
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

[[noreturn]] inline void fail(std::string_view expression, std::size_t offset, std::string_view what) {
    throw InvalidArgument(
        fmt::format("Invalid MessageSelector \"{}\": {} at offset {}", expression, what, offset));
}

/// Keyword kind of an identifier, or Identifier.
RMQ_DECL TokenKind keyword(std::string_view word) {
    static constexpr std::array<std::pair<std::string_view, TokenKind>, 12> keywords{{
        {"NOT", TokenKind::Not},
        {"AND", TokenKind::And},
        {"OR", TokenKind::Or},
        {"BETWEEN", TokenKind::Between},
        {"IN", TokenKind::In},
        {"TRUE", TokenKind::True},
        {"FALSE", TokenKind::False},
        {"NULL", TokenKind::Null},
        {"IS", TokenKind::Is},
        {"CONTAINS", TokenKind::Contains},
        {"STARTSWITH", TokenKind::StartsWith},
        {"ENDSWITH", TokenKind::EndsWith},
    }};
    for (const auto& [name, kind] : keywords) {
        if (name.size() == word.size()) {
            bool same = true;
            for (std::size_t i = 0; i < name.size() && same; ++i) {
                same = upper(word[i]) == name[i];
            }
            if (same) {
                return kind;
            }
        }
    }
    return TokenKind::Identifier;
}

/// Length of an exponent (`E`, optional sign, digits) at `i`, 0 when there is none.
inline std::size_t exponent_length(std::string_view s, std::size_t i) noexcept {
    if (i >= s.size() || upper(s[i]) != 'E') {
        return 0;
    }
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) {
        ++j;
    }
    const std::size_t digits = j;
    while (j < s.size() && is_digit(s[j])) {
        ++j;
    }
    return j == digits ? 0 : j - i;
}

/// DECIMAL_LITERAL or FLOATING_POINT_LITERAL starting at `i` (a digit, or '.' before a digit).
RMQ_DECL Token number(std::string_view s, std::size_t& i) {
    const std::size_t start = i;
    while (i < s.size() && is_digit(s[i])) {
        ++i;
    }
    bool is_float = false;
    if (i < s.size() && s[i] == '.') {
        is_float = true;
        ++i;
        while (i < s.size() && is_digit(s[i])) {
            ++i;
        }
    }
    if (const std::size_t e = exponent_length(s, i); e > 0) {
        is_float = true;
        i += e;
    }
    if (is_float) {
        return {TokenKind::Float, std::string(s.substr(start, i - start)), start};
    }
    Token t{TokenKind::Decimal, std::string(s.substr(start, i - start)), start};
    if (t.text.size() > 1 && t.text[0] == '0') {
        fail(s, start, "a number other than 0 must not start with 0");
    }
    if (i < s.size() && upper(s[i]) == 'L' && t.text != "0") {
        ++i;
    }
    return t;
}

/// STRING_LITERAL at `i` (a quote): '' inside stands for one quote.
RMQ_DECL Token string_literal(std::string_view s, std::size_t& i) {
    Token t{TokenKind::String, {}, i};
    ++i;
    while (true) {
        if (i >= s.size()) {
            fail(s, t.offset, "unterminated string literal");
        }
        if (s[i] == '\'') {
            if (i + 1 < s.size() && s[i + 1] == '\'') {
                t.text += '\'';
                i += 2;
                continue;
            }
            ++i;
            return t;
        }
        t.text += s[i++];
    }
}

/// Skips white space and comments from `i`. A `--` comment needs a line break after it (otherwise the two
/// dashes are minus signs, as in the Java grammar).
RMQ_DECL void skip_blank(std::string_view s, std::size_t& i) {
    while (i < s.size()) {
        const char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            ++i;
        } else if (s.substr(i, 2) == "--" && s.find_first_of("\r\n", i) != std::string_view::npos) {
            i = s.find_first_of("\r\n", i) + 1;
        } else if (s.substr(i, 2) == "/*") {
            const std::size_t end = s.find("*/", i + 2);
            if (end == std::string_view::npos) {
                fail(s, i, "unterminated comment");
            }
            i = end + 2;
        } else {
            return;
        }
    }
}

/// An operator or punctuation token at `i`.
RMQ_DECL Token symbol(std::string_view s, std::size_t& i) {
    static constexpr std::array<std::pair<std::string_view, TokenKind>, 11> symbols{{
        {"<>", TokenKind::NotEqual},
        {">=", TokenKind::GreaterEqual},
        {"<=", TokenKind::LessEqual},
        {"=", TokenKind::Equal},
        {">", TokenKind::Greater},
        {"<", TokenKind::Less},
        {"(", TokenKind::LParen},
        {")", TokenKind::RParen},
        {",", TokenKind::Comma},
        {"+", TokenKind::Plus},
        {"-", TokenKind::Minus},
    }};
    for (const auto& [text, kind] : symbols) {
        if (s.substr(i, text.size()) == text) {
            Token t{kind, std::string(text), i};
            i += text.size();
            return t;
        }
    }
    fail(s, i, fmt::format("unexpected character '{}'", s[i]));
}

RMQ_DECL std::string describe(const Token& token) {
    switch (token.kind) {
    case TokenKind::End:
        return "end of expression";
    case TokenKind::String:
        return fmt::format("string '{}'", token.text);
    case TokenKind::Identifier:
        return fmt::format("identifier {}", token.text);
    default:
        return fmt::format("'{}'", token.text);
    }
}

RMQ_DECL std::vector<Token> tokenize(std::string_view expression) {
    std::vector<Token> tokens;
    std::size_t i = 0;
    while (true) {
        skip_blank(expression, i);
        if (i >= expression.size()) {
            tokens.push_back({TokenKind::End, {}, i});
            return tokens;
        }
        const char c = expression[i];
        if (is_id_start(c)) {
            const std::size_t start = i;
            while (i < expression.size() && is_id_part(expression[i])) {
                ++i;
            }
            const std::string_view word = expression.substr(start, i - start);
            tokens.push_back({keyword(word), std::string(word), start});
        } else if (is_digit(c) || (c == '.' && i + 1 < expression.size() && is_digit(expression[i + 1]))) {
            tokens.push_back(number(expression, i));
        } else if (c == '\'') {
            tokens.push_back(string_literal(expression, i));
        } else {
            tokens.push_back(symbol(expression, i));
        }
    }
}

}  // namespace rmq::detail::filter
