#pragma once

/// @file impl/batch_ack.ipp
/// BatchAckRequest::of: receipts grouped into Java's BatchAcks.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/pop.hpp>

namespace rmq {

namespace detail {

/// The bit of a receipt's message in its check point's BatchAck.
inline std::int32_t batch_ack_bit(const PopReceipt& r, std::string_view extra_info) {
    const std::int64_t bit = r.queue_offset - r.ck_queue_offset;
    if (bit < 0 || bit > BatchAckRequest::max_bit) {
        throw InvalidArgument(
            fmt::format(R"(batch ack: receipt "{}" has its message {} offsets from its check )"
                        "point start (0..{} allowed)",
                        extra_info,
                        bit,
                        BatchAckRequest::max_bit));
    }
    return static_cast<std::int32_t>(bit);
}

/// The BatchAck `ack`'s receipt belongs to in `acks` (a new one when no earlier receipt shares its check
/// point: Java's merge key "retry@queueId@ckQueueOffset@popTime", plus group and topic).
inline BatchAck& batch_ack_of(std::vector<BatchAck>& acks, const AckArgs& ack, const PopReceipt& r) {
    const std::string mark(1, r.topic_mark());
    const auto key = std::tie(ack.consumer_group, ack.topic, mark, r.queue_id, r.ck_queue_offset, r.pop_time);
    const auto same = [&](const BatchAck& b) {
        return std::tie(b.consumer_group, b.topic, b.retry, b.queue_id, b.start_offset, b.pop_time) == key;
    };
    if (const auto it = std::find_if(acks.begin(), acks.end(), same); it != acks.end()) {
        return *it;
    }
    return acks.emplace_back(BatchAck{ack.consumer_group,
                                      ack.topic,
                                      mark,
                                      r.ck_queue_offset,
                                      r.queue_id,
                                      r.revive_qid,
                                      r.pop_time,
                                      r.invisible_time,
                                      {}});
}

}  // namespace detail

RMQ_DECL BatchAckRequest BatchAckRequest::of(const BatchAckArgs& args) {
    if (args.acks.empty()) {
        throw InvalidArgument("batch ack: no receipts");
    }
    BatchAckRequest out;
    for (const auto& ack : args.acks) {
        const auto r = PopReceipt::parse(ack.extra_info);
        if (!out.broker_name) {
            out.broker_name = r.broker_name;
        } else if (*out.broker_name != r.broker_name) {
            throw InvalidArgument(fmt::format(
                R"(batch ack: receipts of brokers "{}" and "{}" in one batch (one BATCH_ACK_MESSAGE per broker))",
                *out.broker_name,
                r.broker_name));
        }
        detail::batch_ack_of(out.acks, ack, r).bits.push_back(detail::batch_ack_bit(r, ack.extra_info));
    }
    for (auto& a : out.acks) {
        std::sort(a.bits.begin(), a.bits.end());
        a.bits.erase(std::unique(a.bits.begin(), a.bits.end()), a.bits.end());
    }
    return out;
}

}  // namespace rmq
