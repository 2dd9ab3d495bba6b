#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <utility>

#include <fmt/format.h>

#include <rmq/remoting/bodies/lock_batch.hpp>
#include <rmq/remoting/headers/fields.hpp>
#include <rmq/remoting/headers/membership.hpp>
#include <rmq/remoting/request_code.hpp>

#include <rmq/detail/remoting_transport/locks.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail::remoting_ops {

/// One request per broker group of `mqs`, to its master.
inline RemotingCaller::Calls batch_calls(TransportParts& parts,
                                         std::int32_t code,
                                         const std::string& group,
                                         const std::string& client_id,
                                         const std::vector<MessageQueue>& mqs) {
    std::map<std::string, std::vector<MessageQueue>> by_broker;
    for (const auto& mq : mqs) {
        by_broker[mq.broker_name].push_back(mq);
    }
    RemotingCaller::Calls calls;
    for (auto& [broker, list] : by_broker) {
        remoting::LockBatchRequestBody body;
        body.consumer_group = group;
        body.client_id = client_id;
        body.only_this_broker = false;
        body.mq_set = std::move(list);
        remoting::BatchMqRequestHeader h;
        h.bname = broker;
        calls.emplace_back(parts.routes.require_master(broker),
                           remoting::make_request(code, h, remoting::encode_lock_batch_request(body)));
    }
    return calls;
}

RMQ_DECL std::vector<MessageQueue> lock_batch(TransportParts& parts,
                                              const std::string& group,
                                              const std::string& client_id,
                                              const std::vector<MessageQueue>& mqs) {
    const auto calls = batch_calls(parts, remoting::request_code::lock_batch_mq, group, client_id, mqs);
    std::vector<MessageQueue> locked;
    std::exception_ptr first_error;
    std::size_t failures = 0;
    for (const auto& [addr, result] : parts.caller.call_all(calls, parts.config.mq_client_api_timeout)) {
        try {
            if (const auto* e = std::get_if<std::exception_ptr>(&result)) {
                std::rethrow_exception(*e);
            }
            const auto& resp = std::get<remoting::Command>(result);
            RemotingCaller::check_success(resp, fmt::format("lock batch at {}", addr));
            for (auto& mq : remoting::decode_lock_batch_response(resp.body)) {
                locked.push_back(std::move(mq));
            }
        } catch (const std::exception& e) {
            ++failures;
            if (!first_error) {
                first_error = std::current_exception();
            }
            log_repeated(LogLevel::Warn,
                         fmt::format("lock batch {} {}", group, addr),
                         "group [{}]: lock batch at {} failed: {}",
                         group,
                         addr,
                         e.what());
        }
    }
    if (failures != 0 && failures == calls.size()) {
        std::rethrow_exception(first_error);
    }
    return locked;
}

RMQ_DECL void unlock_batch(TransportParts& parts,
                           const std::string& group,
                           const std::string& client_id,
                           const std::vector<MessageQueue>& mqs) {
    const auto calls = batch_calls(parts, remoting::request_code::unlock_batch_mq, group, client_id, mqs);
    RemotingCaller::throw_first_failure(parts.caller.call_all(calls, parts.config.mq_client_api_timeout),
                                        "unlock batch");
}

}  // namespace rmq::detail::remoting_ops
