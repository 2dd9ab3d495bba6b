// SQL92 selectors: parsing and evaluation with rocketmq-filter's semantics. Expected values follow Java's
// SelectorParser / ComparisonExpression / LogicExpression / UnaryExpression (5.3); the rows marked "Java
// ExpressionTest" repeat filter/src/test/java/org/apache/rocketmq/filter/ExpressionTest.java cases (there,
// an evaluation that throws or gives NULL is "not matched", as ExpressionMessageFilter answers).

#include <cstddef>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include <catch2/catch.hpp>

#include <rmq/error.hpp>
#include <rmq/message.hpp>

#include <rmq/detail/filter/parser.hpp>

namespace {

using Props = std::initializer_list<std::pair<const char*, const char*>>;

rmq::Message message_with(Props props) {
    rmq::Message m("T", "body");
    for (const auto& [k, v] : props) {
        m.set_property(k, v);
    }
    return m;
}

// `depth` opening parentheses, `inner`, `depth` closing ones. Appended in place: g++ 12 at -O2 reports a
// false -Warray-bounds on `std::string(n, '(') + "literal" + ...` (the literal copied past a moved
// temporary's buffer).
std::string parenthesised(std::size_t depth, std::string_view inner) {
    std::string s(depth, '(');
    s.append(inner);
    s.append(depth, ')');
    return s;
}

bool matches(const std::string& expr, Props props) {
    return rmq::detail::filter::compile(expr).matches(message_with(props));
}

struct Row {
    const char* expr;
    Props props;
    bool expected;
};

void check_rows(std::initializer_list<Row> rows) {
    for (const auto& row : rows) {
        INFO("expression: " << row.expr);
        CHECK(matches(row.expr, row.props) == row.expected);
    }
}

}  // namespace

TEST_CASE("numeric comparisons parse the property string as the literal's type", "[filter]") {
    check_rows({
        {"a > 5", {{"a", "10"}}, true},
        {"a > 5", {{"a", "5"}}, false},
        {"a >= 5", {{"a", "5"}}, true},
        {"a < 5", {{"a", "-3"}}, true},
        {"a <= 5", {{"a", "+5"}}, true},
        {"a = 5", {{"a", "5"}}, true},
        {"a = 5", {{"a", "05"}}, true},  // Integer.valueOf("05")
        {"a <> 5", {{"a", "6"}}, true},
        {"a > 3.14", {{"a", "3.1415"}}, true},       // Java ExpressionTest testEvaluate_floatNumber
        {"a > 3.1E10", {{"a", "3.1415E10"}}, true},  // Java ExpressionTest testEvaluate_exponent
        {"a = 1.5", {{"a", "1.50"}}, true},
        {"a = 5.e3", {{"a", "5000"}}, true},  // float literal forms: 5.E10, .5, 5E10
        {"a = .5", {{"a", "0.5"}}, true},
        {"a = 5E1", {{"a", "50d"}}, true},  // Double.valueOf takes a d/f suffix
        {"a = 10L", {{"a", "10"}}, true},
        {"a > 2", {{"a", " 3"}}, false},   // Integer.valueOf does not trim: the evaluation fails
        {"a > 2.0", {{"a", " 3"}}, true},  // Double.valueOf does
        {"a > 5", {{"a", "5.5"}}, false},  // Integer.valueOf("5.5") throws
        {"a > 2147483647", {{"a", "2147483648"}}, false},  // an Integer literal: "2147483648" overflows
        {"a > 2147483648", {{"a", "2147483649"}}, true},   // a Long literal
        {"a = -5", {{"a", "-5"}}, true},
        {"a > -5", {{"a", "-4"}}, true},
        {"a > b", {{"a", "10"}, {"b", "20"}}, false},  // Java ExpressionTest testEvaluate_twoVariable
        {"a > b", {{"a", "20"}, {"b", "10"}}, true},   // two Strings compare as doubles
        {"a > b", {{"a", "x"}, {"b", "10"}}, false},   // ... or the evaluation fails
        {"a = b", {{"a", "3.14"}, {"b", "3.14"}}, true},
        {"a <> b", {{"a", "3.14"}, {"b", "3.141"}}, true},
        {"a = b", {{"a", "1"}, {"b", "1.0"}}, false},  // two Strings: = is string equality
    });
}

TEST_CASE("a missing property is unknown and never matches", "[filter]") {
    check_rows({
        {"a > 5", {}, false},
        {"NOT (a > 5)", {}, false},
        {"a = 'x'", {}, false},
        {"a <> 'x'", {}, false},
        {"NOT (a = 'x')", {}, false},
        {"a IN ('x')", {}, false},
        {"a NOT IN ('x')", {}, false},
        {"a BETWEEN 1 AND 3", {}, false},
        {"a NOT BETWEEN 1 AND 3", {}, false},
        {"a IS NULL", {}, true},
        {"a IS NOT NULL", {}, false},
        {"a IS NULL", {{"a", ""}}, true},  // an empty value does not survive the wire: absent
        {"a = b", {}, true},               // NULL = NULL is TRUE in ComparisonExpression.doCreateEqual
        {"a > 5 OR b = 'y'", {{"b", "y"}}, true},
        {"a > 5 OR b = 'y'", {{"b", "z"}}, false},
        {"a > 5 AND b = 'y'", {{"b", "z"}}, false},
        {"a > 5 AND b = 'y'", {{"b", "y"}}, false},
        {"a IS NULL OR a = 'hello'", {}, true},  // Java ExpressionTest testEvaluate_nullOr
        {"a IS NULL OR a = 'hello'", {{"a", "hello"}}, true},
        {"a IS NULL OR a = 'hello'", {{"a", "abc"}}, false},
        {"a CONTAINS 'x'", {}, false},
        {"a NOT CONTAINS 'x'", {}, false},  // Java ExpressionTest: NOT CONTAINS of NULL is FALSE
    });
}

TEST_CASE("type mismatches do not match", "[filter]") {
    check_rows({
        {"a = 5", {{"a", "abc"}}, false},   // Integer.valueOf("abc") throws
        {"a <> 5", {{"a", "abc"}}, false},  // ... for <> too: the whole evaluation fails
        {"a > 5 OR b = 'y'", {{"a", "abc"}, {"b", "y"}}, false},
        {"b = 'y' OR a > 5", {{"a", "abc"}, {"b", "y"}}, true},  // OR decided before the failure
        {"a = 'abc'", {{"a", "abc"}}, true},
        {"a = '5'", {{"a", "5"}}, true},
        {"a = TRUE", {{"a", "true"}}, true},  // Boolean.valueOf of the string
        {"a = TRUE", {{"a", "TRUE"}}, true},
        {"a = TRUE", {{"a", "yes"}}, false},
        {"a = TRUE OR b = FALSE",
         {{"a", "true"}, {"b", "false"}},
         true},  // Java ExpressionTest testEvaluate_boolean
        {"a = TRUE OR b = FALSE", {{"a", "false"}, {"b", "true"}}, false},
        {"(a = '1') = 1", {{"a", "1"}}, false},  // a Boolean against a number: compares as unequal
        {"(a = '1') <> 1", {{"a", "1"}}, true},
        {"(a = '1') = TRUE", {{"a", "1"}}, true},
        {"(a = '1') = b", {{"a", "1"}, {"b", "true"}}, false},  // Boolean vs String: Java's cast fails
        {"a", {{"a", "true"}}, false},     // a property as a condition is a String, never TRUE
        {"-a = 5", {{"a", "-5"}}, false},  // negating a String is NULL
        {"1 = 1.0", {}, true},
        {"2147483648 = 2147483648", {}, true},
    });
}

TEST_CASE("logic, constants and precedence", "[filter]") {
    check_rows({
        {"TRUE", {}, true},
        {"FALSE", {}, false},
        {"NULL", {}, false},
        {"NOT FALSE", {}, true},
        {"NOT NULL", {}, false},
        {"TRUE OR NULL", {}, true},
        {"NULL OR TRUE", {}, true},
        {"FALSE AND NULL", {}, false},
        {"NULL AND TRUE", {}, false},
        {"a=3 and b<>4 And c>5 AND d<=4",
         {{"a", "3"}, {"b", "5"}, {"c", "6"}, {"d", "1"}},
         true},  // Java ExpressionTest
        {"a=3 and b<>4 And c>5 AND d<=4", {{"a", "4"}, {"b", "5"}, {"c", "6"}, {"d", "1"}}, false},
        {"a=3 or b<>4 Or c>5 OR d<=4", {{"a", "4"}, {"b", "4"}, {"c", "3"}, {"d", "2"}}, true},
        {"a=3 or b<>4 Or c>5 OR d<=4", {{"a", "4"}, {"b", "4"}, {"c", "3"}, {"d", "10"}}, false},
        {"a = '1' OR b = '1' AND c = '1'", {{"a", "1"}}, true},  // AND binds tighter
        {"(a = '1' OR b = '1') AND c = '1'", {{"a", "1"}}, false},
        {"NOT (a = '1')", {{"a", "2"}}, true},
        {"NOT a = '1'", {{"a", "2"}}, false},  // NOT binds tighter than =: (NOT a) = '1'
        {"a = 1 -- comment\n AND /* block */ b = 2", {{"a", "1"}, {"b", "2"}}, true},
        {"a = --1", {{"a", "1"}}, true},  // no line break: two minus signs
        {"a = +1", {{"a", "1"}}, true},
        {"A = 1", {{"a", "1"}}, false},  // property names are case-sensitive, keywords are not
        {"a = 1 aNd b = 2", {{"a", "1"}, {"b", "2"}}, true},
    });
}

TEST_CASE("BETWEEN, IN, IS NULL and the string operators", "[filter]") {
    check_rows({
        {"a between 2 and 10", {{"a", "2"}}, true},  // Java ExpressionTest testEvaluate_betweenTrue
        {"a between 2 and 10", {{"a", "10"}}, true},
        {"a between 2 and 10", {{"a", "11"}}, false},
        {"a not between 2 and 10", {{"a", "1"}}, true},
        {"a not between 2 and 10", {{"a", "5"}}, false},
        {"a between 0 and 100", {{"a", "abc"}}, false},
        {"a between -1.5 and 1.5", {{"a", "0"}}, true},  // the String is parsed as a double
        {"a between -1.5 and 1.5", {{"a", "0.5"}}, true},
        {"a in ('3', '4', '5')", {{"a", "4"}}, true},
        {"a in ('3', '4', '5')", {{"a", "8"}}, false},
        {"a not in ('3', '4', '5')", {{"a", "8"}}, true},
        {"a not in ('3', '4', '5')", {{"a", "3"}}, false},
        {"a in ('it''s')", {{"a", "it's"}}, true},
        {"TAGS is not null and TAGS='''''tag'''''", {{"TAGS", "''tag''"}}, true},  // Java ExpressionTest
        {"value contains 'x'", {{"value", "axb"}}, true},
        {"value startswith 'ax'", {{"value", "axb"}}, true},
        {"value endswith 'xb'", {{"value", "axb"}}, true},
        {"value not contains 'x'", {{"value", "axb"}}, false},
        {"value not startswith 'x'", {{"value", "axb"}}, true},
        {"value not endswith 'x'", {{"value", "axb"}}, true},
        {"value contains ''", {{"value", "axb"}}, false},  // an empty search is FALSE, NOT too
        {"value not contains ''", {{"value", "axb"}}, false},
        {"'axb' contains 'x'", {}, true},
        {"a = 'héllo'", {{"a", "héllo"}}, true},
    });
}

TEST_CASE("0.0 BETWEEN quirks: a literal below Double.MIN_VALUE is refused like Java", "[filter]") {
    CHECK_THROWS_AS(rmq::detail::filter::compile("a > 0.0"), rmq::InvalidArgument);
    CHECK(matches("a between -1.5 and 1.5", {{"a", "0.5"}}));
}

TEST_CASE("bad expressions throw InvalidArgument with a message", "[filter]") {
    for (const char* bad : {
             "",
             "a",  // fine as a condition? no: see below
             "a >",
             "a = ",
             "a and between 2 and 10",        // Java ParserTest invalidExpression
             " a between 10 and 0",           // Java ParserTest illegalBetween
             "a > 100000000000000000000000",  // Java ParserTest testParse_decimalOverFlow
             "a > 'x'",
             "a > TRUE",
             "a > (b = 1)",
             "a = NULL",
             "TRUE = 1",
             "5",
             "'x'",
             "a = 1 AND 5",
             "NOT 5",
             "5 IN ('x')",
             "a IN ()",
             "a IN (1)",
             "a CONTAINS x",  // Java ExpressionTest: parse exception
             "a CONTAINS 123",
             "'axb' contains ",
             "a = 'unterminated",
             "a = 1 /* open",
             "a = 1 -- no newline but trailing junk b",
             "a = 1 b",
             "a = 1)",
             "(a = 1",
             "a = 007",
             "a = 1E999",
             "a # 1",
             "a IS 1",
             "a NOT = 1",
         }) {
        INFO("expression: [" << bad << "]");
        if (std::string(bad) == "a") {
            CHECK_NOTHROW(rmq::detail::filter::compile(bad));  // a BooleanCast: valid, never TRUE
            continue;
        }
        CHECK_THROWS_AS(rmq::detail::filter::compile(bad), rmq::InvalidArgument);
    }
    CHECK_THROWS_WITH(rmq::detail::filter::compile("a > 'x'"), Catch::Contains("Invalid MessageSelector"));
    CHECK_THROWS_WITH(rmq::detail::filter::compile("a = 1 b"), Catch::Contains("offset 6"));
}

TEST_CASE("hostile input: deep nesting is refused, long flat chains are fine", "[filter]") {
    const std::string deep_parens = parenthesised(100000, "a = 1");
    CHECK_THROWS_WITH(rmq::detail::filter::compile(deep_parens), Catch::Contains("nested deeper"));
    std::string nots;
    for (int i = 0; i < 50000; ++i) {
        nots += "NOT ";
    }
    CHECK_THROWS_WITH(rmq::detail::filter::compile(nots + "TRUE"), Catch::Contains("nested deeper"));
    std::string minus(50000, '-');
    CHECK_THROWS_AS(rmq::detail::filter::compile("a = " + minus + "1"), rmq::InvalidArgument);
    std::string chain = "a = 1";
    for (int i = 0; i < 5000; ++i) {
        chain += " = 1";
    }
    CHECK_THROWS_WITH(rmq::detail::filter::compile(chain), Catch::Contains("nested deeper"));
    std::string ors = "a = '0'";
    for (int i = 1; i < 10000; ++i) {
        ors += " OR a = '" + std::to_string(i) + "'";
    }
    CHECK(matches(ors, {{"a", "9999"}}));
    CHECK_FALSE(matches(ors, {{"a", "10000"}}));
    const std::string nested = parenthesised(20, "a = 1");
    CHECK(matches(nested, {{"a", "1"}}));
}

TEST_CASE("property values parse as Java's Double.valueOf, out-of-range ones as infinity or zero",
          "[filter]") {
    using rmq::detail::filter::java_parse_double;
    CHECK(java_parse_double("1.5e3") == 1500.0);
    CHECK(java_parse_double(" -2.5 ") == -2.5);
    CHECK(java_parse_double("1e400") == std::numeric_limits<double>::infinity());
    CHECK(java_parse_double("-1e400") == -std::numeric_limits<double>::infinity());
    CHECK(java_parse_double("1e-400") == 0.0);
    CHECK_FALSE(java_parse_double("1,5").has_value());
    CHECK_FALSE(java_parse_double("0x1p3").has_value());
}
