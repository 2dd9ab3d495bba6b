#pragma once

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include <rmq/error.hpp>

#include <rmq/detail/simple_consumer/acks.hpp>

namespace rmq::detail {

RMQ_DECL std::vector<AckGroup> ack_groups(std::span<const MessageExt> msgs, const std::string& group) {
    std::vector<AckGroup> out;
    std::vector<std::string> brokers;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
        const auto receipt = PopReceipt::of(msgs[i]);
        const auto at = std::find(brokers.begin(), brokers.end(), receipt.broker_name);
        const auto g = static_cast<std::size_t>(at - brokers.begin());
        if (at == brokers.end()) {
            brokers.push_back(receipt.broker_name);
            out.emplace_back();
        }
        out[g].indices.push_back(i);
        out[g].args.acks.push_back(AckArgs{group, msgs[i].topic(), receipt.to_string()});
    }
    return out;
}

RMQ_DECL void AckOutcomes::fail(const std::vector<std::size_t>& indices, std::exception_ptr error) {
    const std::lock_guard lock(mutex_);
    failed_.insert(failed_.end(), indices.begin(), indices.end());
    errors_.push_back(std::move(error));
}

RMQ_DECL void AckOutcomes::rethrow() const {
    const std::lock_guard lock(mutex_);
    if (errors_.empty()) {
        return;
    }
    if (failed_.size() == total_) {
        std::rethrow_exception(errors_.front());  // nothing acked: the failure as ack(msg) throws it
    }
    auto failed = failed_;
    std::sort(failed.begin(), failed.end());
    std::string first = "unknown error";
    try {
        std::rethrow_exception(errors_.front());
    } catch (const std::exception& e) {
        first = e.what();
    } catch (...) {
    }
    throw PartialAckError(
        fmt::format("ack: {} of {} messages not acked ({})", failed.size(), total_, first), failed, errors_);
}

}  // namespace rmq::detail
