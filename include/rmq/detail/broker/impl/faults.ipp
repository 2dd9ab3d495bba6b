#pragma once

#include <fmt/format.h>

#include <rmq/error.hpp>

#include <rmq/detail/broker/faults.hpp>

namespace rmq::detail {

RMQ_DECL void FaultInjector::set(BrokerRequest request, int code, int times) {
    if (times <= 0) {
        faults_.erase(request);
    } else {
        faults_[request] = Fault{code, times};
    }
}

RMQ_DECL void FaultInjector::take(BrokerRequest request) {
    if (const auto code = take_code(request)) {
        throw BrokerError(*code,
                          fmt::format("injected failure of request kind {}", static_cast<int>(request)));
    }
}

RMQ_DECL std::optional<int> FaultInjector::take_code(BrokerRequest request) {
    const auto it = faults_.find(request);
    if (it == faults_.end()) {
        return std::nullopt;
    }
    const int code = it->second.code;
    if (--it->second.remaining == 0) {
        faults_.erase(it);
    }
    return code;
}

}  // namespace rmq::detail
