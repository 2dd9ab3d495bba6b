#pragma once

#include <array>
#include <typeinfo>
#include <utility>

#include <rmq/error.hpp>

#include <rmq/detail/util/plain_failure.hpp>

namespace rmq::detail {

RMQ_DECL PlainFailure PlainFailure::of(const std::exception_ptr& error, std::string_view unknown) {
    PlainFailure out;
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        out.what_ = e.what();
        out.take(e);
    } catch (...) {
        out.what_ = std::string(unknown);
    }
    return out;
}

RMQ_DECL PlainFailure PlainFailure::other(std::string what) {
    PlainFailure out;
    out.what_ = std::move(what);
    return out;
}

/// The kind of `e`'s own type (a type derived from one of them elsewhere is Other) and its fields.
RMQ_DECL void PlainFailure::take(const std::exception& e) {
    struct Known {
        const std::type_info* type;
        Kind kind;
    };

    const std::array<Known, 15> known{{
        {&typeid(rmq::Error), Kind::Error},
        {&typeid(rmq::InvalidArgument), Kind::InvalidArgument},
        {&typeid(rmq::IllegalState), Kind::IllegalState},
        {&typeid(rmq::BrokerError), Kind::BrokerError},
        {&typeid(rmq::AccessDenied), Kind::AccessDenied},
        {&typeid(rmq::TlsError), Kind::TlsError},
        {&typeid(rmq::CodecError), Kind::CodecError},
        {&typeid(rmq::Timeout), Kind::Timeout},
        {&typeid(rmq::MessageTooLarge), Kind::MessageTooLarge},
        {&typeid(rmq::InvalidBatch), Kind::InvalidBatch},
        {&typeid(rmq::TimerRejected), Kind::TimerRejected},
        {&typeid(rmq::UnsupportedByBroker), Kind::UnsupportedByBroker},
        {&typeid(rmq::PopUnsupported), Kind::PopUnsupported},
        {&typeid(rmq::PartialAckError), Kind::PartialAckError},
        {&typeid(rmq::TooManyRequests), Kind::TooManyRequests},
    }};
    for (const auto& k : known) {
        if (typeid(e) == *k.type) {
            kind_ = k.kind;
            break;
        }
    }
    switch (kind_) {
    case Kind::BrokerError:
    case Kind::AccessDenied:
    case Kind::TimerRejected:
    case Kind::PopUnsupported:
        number_ = dynamic_cast<const rmq::BrokerError&>(e).code();
        break;
    case Kind::MessageTooLarge: {
        const auto& large = dynamic_cast<const rmq::MessageTooLarge&>(e);
        number_ = static_cast<std::int64_t>(large.size());
        limit_ = large.limit();
        break;
    }
    case Kind::UnsupportedByBroker:
        number_ = dynamic_cast<const rmq::UnsupportedByBroker&>(e).broker_version();
        break;
    case Kind::PartialAckError: {
        const auto& partial = dynamic_cast<const rmq::PartialAckError&>(e);
        failed_ = partial.failed();
        for (const auto& error : partial.errors()) {
            errors_.push_back(error ? of(error, "an ack failed with an unknown error")
                                    : other("an ack failed without an error"));
        }
        break;
    }
    default:
        break;
    }
}

RMQ_DECL void PlainFailure::rethrow() const {
    switch (kind_) {
    case Kind::Error:
    case Kind::Other:
        throw rmq::Error(what_);
    case Kind::InvalidArgument:
        throw rmq::InvalidArgument(what_);
    case Kind::IllegalState:
        throw rmq::IllegalState(what_);
    case Kind::BrokerError:
        throw rmq::BrokerError(static_cast<int>(number_), what_);
    case Kind::AccessDenied:
        throw rmq::AccessDenied(static_cast<int>(number_), what_);
    case Kind::TlsError:
        throw rmq::TlsError(what_);
    case Kind::CodecError:
        throw rmq::CodecError(what_);
    case Kind::Timeout:
        throw rmq::Timeout(what_);
    case Kind::MessageTooLarge:
        throw rmq::MessageTooLarge(what_, static_cast<std::size_t>(number_), limit_);
    case Kind::InvalidBatch:
        throw rmq::InvalidBatch(what_);
    case Kind::TimerRejected:
        throw rmq::TimerRejected(static_cast<int>(number_), what_);
    case Kind::UnsupportedByBroker:
        throw rmq::UnsupportedByBroker(what_, static_cast<std::int32_t>(number_));
    case Kind::PopUnsupported:
        throw rmq::PopUnsupported(static_cast<int>(number_), what_);
    case Kind::PartialAckError: {
        std::vector<std::exception_ptr> errors;
        errors.reserve(errors_.size());
        for (const auto& e : errors_) {
            errors.push_back(e.fresh());
        }
        throw rmq::PartialAckError(what_, failed_, std::move(errors));
    }
    case Kind::TooManyRequests:
        throw rmq::TooManyRequests(what_);
    }
    throw rmq::Error(what_);
}

RMQ_DECL std::exception_ptr PlainFailure::fresh() const {
    try {
        rethrow();
    } catch (...) {
        return std::current_exception();
    }
}

}  // namespace rmq::detail
