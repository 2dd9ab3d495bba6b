#pragma once

/// @file detail/broker/faults.hpp
/// Fault injection of the embedded broker (InProcessBroker::inject_failure): pending failures per request
/// kind, taken before a request changes anything.

#include <map>
#include <optional>

#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/transport/broker_config.hpp>

namespace rmq::detail {

class FaultInjector {
public:
    /// The next `times` requests of kind `request` fail with `code`; `times` <= 0 clears.
    void set(BrokerRequest request, int code, int times);

    /// Throws the pending failure of this kind (rmq::BrokerError), if any, consuming it.
    void take(BrokerRequest request);

    /// The pending failure code of this kind, consumed; nullopt when none. For pulls, which fail by Outcome.
    std::optional<int> take_code(BrokerRequest request);

private:
    struct Fault {
        int code = 0;
        int remaining = 0;
    };

    std::map<BrokerRequest, Fault> faults_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/broker/impl/faults.ipp>
#endif
