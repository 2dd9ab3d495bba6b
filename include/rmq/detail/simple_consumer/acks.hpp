#pragma once

/// @file detail/simple_consumer/acks.hpp
/// SimpleConsumer::ack(span): the receipts grouped by the broker they name (one BATCH_ACK_MESSAGE each, as
/// the gRPC proxy's ConsumerProcessor.batchAckMessage splits a batch), and the outcomes of the requests
/// collected into what the ack throws.

#include <cstddef>
#include <exception>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <rmq/config.hpp>
#include <rmq/message.hpp>
#include <rmq/pop.hpp>

namespace rmq::detail {

/// The acks of one broker and the indices of their messages.
struct AckGroup {
    std::vector<std::size_t> indices;
    BatchAckArgs args;
};

/// The acks of `msgs` for `group` by the broker their receipts name, brokers in the order first seen.
/// rmq::InvalidArgument for a message without (or with a malformed) receipt.
std::vector<AckGroup> ack_groups(std::span<const MessageExt> msgs, const std::string& group);

/// The failed requests of an ack of `total` messages, from any thread.
class AckOutcomes {
public:
    explicit AckOutcomes(std::size_t total)
        : total_(total) {}

    void fail(const std::vector<std::size_t>& indices, std::exception_ptr error);

    /// Nothing when every request succeeded; the first failure when no message was acked; else
    /// rmq::PartialAckError.
    void rethrow() const;

private:
    mutable std::mutex mutex_;
    std::size_t total_;
    std::vector<std::size_t> failed_;
    std::vector<std::exception_ptr> errors_;
};

}  // namespace rmq::detail

#if RMQ_INCLUDE_IMPL
#    include <rmq/detail/simple_consumer/impl/acks.ipp>
#endif
