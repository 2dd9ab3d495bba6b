// detail::PlainFailure, how a failure crosses threads (RemotingClient::invoke_sync, a POP's wait, the futures
// of detail::CallerFutures): each exception type of rmq/error.hpp comes back as a new exception of the same
// type, message and fields; anything else as rmq::Error with its message. A CallerFutures future holds
// such a new exception.

#include <cstddef>
#include <exception>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include <catch2/catch.hpp>

#include <rmq/assignment.hpp>
#include <rmq/error.hpp>

#include <rmq/detail/util/caller_futures.hpp>
#include <rmq/detail/util/plain_failure.hpp>

namespace plain_failure_test {

namespace {

using rmq::detail::PlainFailure;

/// What `original` comes back as through a PlainFailure, rethrown.
std::exception_ptr round_trip(const std::exception_ptr& original) {
    const auto plain = PlainFailure::of(original, "unknown");
    try {
        plain.rethrow();
    } catch (...) {
        return std::current_exception();
    }
}

/// The exception `e` holds; the object itself, not a copy.
const std::exception& object_of(const std::exception_ptr& e) {
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& ex) {
        return ex;
    }
}

/// `original` through a PlainFailure: a new exception of type E with the same message.
template <class E>
std::exception_ptr back_as(const std::exception_ptr& original) {
    const auto back = round_trip(original);
    const std::exception& got = object_of(back);
    REQUIRE(typeid(got) == typeid(E));
    CHECK(std::string(got.what()) == object_of(original).what());
    CHECK(&got != &object_of(original));  // a new exception, not the one given
    return back;
}

template <class E>
const E& held(const std::exception_ptr& e) {
    return dynamic_cast<const E&>(object_of(e));
}

}  // namespace

TEST_CASE(
    "a PlainFailure rethrows each exception of rmq/error.hpp as a new one of its type, message and fields",
    "[net][plain_failure]") {
    (void)back_as<rmq::Error>(std::make_exception_ptr(rmq::Error("e")));
    (void)back_as<rmq::InvalidArgument>(std::make_exception_ptr(rmq::InvalidArgument("bad topic")));
    (void)back_as<rmq::IllegalState>(std::make_exception_ptr(rmq::IllegalState("not started")));
    const auto broker = back_as<rmq::BrokerError>(std::make_exception_ptr(rmq::BrokerError(13, "illegal")));
    CHECK(held<rmq::BrokerError>(broker).code() == 13);
    const auto denied = back_as<rmq::AccessDenied>(std::make_exception_ptr(rmq::AccessDenied(16, "denied")));
    CHECK(held<rmq::AccessDenied>(denied).code() == 16);
    (void)back_as<rmq::TlsError>(std::make_exception_ptr(rmq::TlsError("handshake")));
    (void)back_as<rmq::CodecError>(std::make_exception_ptr(rmq::CodecError("truncated")));
    (void)back_as<rmq::Timeout>(std::make_exception_ptr(rmq::Timeout("wait response timeout")));
    const auto large =
        back_as<rmq::MessageTooLarge>(std::make_exception_ptr(rmq::MessageTooLarge("big", 9, 4)));
    CHECK(held<rmq::MessageTooLarge>(large).size() == 9);
    CHECK(held<rmq::MessageTooLarge>(large).limit() == 4);
    (void)back_as<rmq::InvalidBatch>(std::make_exception_ptr(rmq::InvalidBatch("mixed topics")));
    const auto timer = back_as<rmq::TimerRejected>(std::make_exception_ptr(rmq::TimerRejected(13, "delay")));
    CHECK(held<rmq::TimerRejected>(timer).code() == 13);
    const auto old =
        back_as<rmq::UnsupportedByBroker>(std::make_exception_ptr(rmq::UnsupportedByBroker("4.x", 407)));
    CHECK(held<rmq::UnsupportedByBroker>(old).broker_version() == 407);
    const auto no_pop =
        back_as<rmq::PopUnsupported>(std::make_exception_ptr(rmq::PopUnsupported(3, "no pop")));
    CHECK(held<rmq::PopUnsupported>(no_pop).code() == 3);
    (void)back_as<rmq::TooManyRequests>(std::make_exception_ptr(rmq::TooManyRequests("no slot")));

    const auto inner = std::make_exception_ptr(rmq::BrokerError(1, "store is busy"));
    const auto partial_back = back_as<rmq::PartialAckError>(
        std::make_exception_ptr(rmq::PartialAckError("2 of 3 not acked", {0, 2}, {inner, inner})));
    const auto& partial = held<rmq::PartialAckError>(partial_back);
    CHECK(partial.failed() == std::vector<std::size_t>{0, 2});
    REQUIRE(partial.errors().size() == 2);
    for (const auto& e : partial.errors()) {
        const std::exception& got = object_of(e);
        REQUIRE(typeid(got) == typeid(rmq::BrokerError));
        CHECK(dynamic_cast<const rmq::BrokerError&>(got).code() == 1);
        CHECK(std::string(got.what()) == "store is busy");
        CHECK(&got != &object_of(inner));
    }
}

TEST_CASE("a PlainFailure of an exception outside rmq/error.hpp rethrows rmq::Error with its message",
          "[net][plain_failure]") {
    const auto foreign = PlainFailure::of(std::make_exception_ptr(std::out_of_range("index 7")), "unknown");
    CHECK_FALSE(foreign.exact());
    CHECK_THROWS_MATCHES(foreign.rethrow(), rmq::Error, Catch::Message("index 7"));
    // A type derived from rmq's elsewhere is not one PlainFailure can make: not exact either.
    const auto derived =
        PlainFailure::of(std::make_exception_ptr(rmq::AssignmentUnsupported(3, "no assignment")), "unknown");
    CHECK_FALSE(derived.exact());
    const auto not_std = PlainFailure::of(std::make_exception_ptr(42), "failed with an unknown error");
    CHECK_FALSE(not_std.exact());
    CHECK_THROWS_MATCHES(not_std.rethrow(), rmq::Error, Catch::Message("failed with an unknown error"));
    CHECK_THROWS_MATCHES(
        PlainFailure::other("no response").rethrow(), rmq::Error, Catch::Message("no response"));
    CHECK(PlainFailure::of(std::make_exception_ptr(rmq::Timeout("t")), "unknown").exact());
}

TEST_CASE("a CallerFutures future holds a new exception of the failure's type, made on the completing thread",
          "[net][plain_failure]") {
    rmq::detail::CallerFutures futures;
    auto [completion, future] = futures.make<int>();
    const auto given = std::make_exception_ptr(rmq::BrokerError(13, "refused"));
    std::thread completing([&completion, &given] { completion.set_exception(given); });
    completing.join();
    completion.set_value(1);  // a second completion is ignored
    try {
        (void)future.get();
        FAIL("no exception");
    } catch (const rmq::BrokerError& e) {
        CHECK(e.code() == 13);
        CHECK(std::string(e.what()) == "refused");
        CHECK(&e != &object_of(given));  // not the object the completing thread may still hold
    }
    // A type outside rmq/error.hpp cannot be copied: the future holds it as given.
    auto [foreign, held_as_given] = futures.make<void>();
    foreign.set_exception(std::make_exception_ptr(std::out_of_range("selector")));
    CHECK_THROWS_AS(held_as_given.get(), std::out_of_range);
}

}  // namespace plain_failure_test
