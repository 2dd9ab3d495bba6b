#pragma once

/// @file detail/net/refusal.hpp
/// Which broker answers refuse a request's credentials or permissions, and the exception an error answer
/// becomes. RocketMQ 5.x answers NO_PERMISSION (16). 4.x's ACL (aclEnable + plain_acl.yml) throws an
/// AclException from the broker's RPC hook, which its remoting layer turns into SYSTEM_ERROR (1) with the
/// exception's text as remark ("org.apache.rocketmq.acl.common.AclException: Check signature failed for
/// accessKey=..., <frame>"): the Java client surfaces that as a plain MQBrokerException; rmq names it for
/// what it is, keeping the code the broker sent.

#include <string>
#include <string_view>

#include <rmq/error.hpp>
#include <rmq/protocol.hpp>

namespace rmq::detail {

/// Whether an answer with `code` and `remark` is a refusal by the broker's ACL (either version's).
[[nodiscard]] inline bool is_access_denied(int code, std::string_view remark) noexcept {
    return code == response_code::no_permission ||
           (code == response_code::system_error && remark.find("AclException") != std::string_view::npos);
}

/// rmq::AccessDenied for a refusal by the ACL, rmq::BrokerError for any other error answer. `message` is the
/// exception's text (it contains the remark, with what was asked).
[[noreturn]] inline void throw_broker_error(int code, std::string_view remark, const std::string& message) {
    if (is_access_denied(code, remark)) {
        throw AccessDenied(code, message);
    }
    throw BrokerError(code, message);
}

}  // namespace rmq::detail
