#pragma once

/// @file impl/producer_trace.hpp
/// rmq::Producer's Pub trace records (enable_msg_trace, docs/trace.md): each send attempt that got an answer,
/// sync, async or batch, goes to the trace dispatcher.

#include <concepts>
#include <cstdint>
#include <vector>

#include <rmq/error.hpp>
#include <rmq/producer.hpp>

#include <rmq/detail/trace/tracer.hpp>
#include <rmq/detail/wire/batch_size.hpp>

namespace rmq {

/// One attempt of a send, traced (Java's send hooks around sendKernelImpl) when tracing is on.
template <Transport Tr>
SendResult Producer<Tr>::send_traced(const Message& m, const MessageQueue& mq) {
    if (!tracer_) {
        return transport_.send(m, mq);
    }
    const std::int64_t began = tracer_->now();
    SendResult r = transport_.send(m, mq);
    tracer_->on_sent(m, static_cast<std::int32_t>(m.body().size()), false, r, began);
    return r;
}

template <Transport Tr>
SendResult Producer<Tr>::send_batch_traced(const std::vector<Message>& batch, const MessageQueue& mq)
requires HasSendBatch<Tr>
{
    if (!tracer_) {
        return transport_.send_batch(batch, mq);
    }
    const std::int64_t began = tracer_->now();
    SendResult r = transport_.send_batch(batch, mq);
    tracer_->on_sent(
        batch.front(), static_cast<std::int32_t>(detail::batch_body_size(batch)), true, r, began);
    return r;
}

/// Java's DefaultMQProducer.start with enableTrace: the dispatcher and its producer (not traced itself).
template <Transport Tr>
void Producer<Tr>::start_tracer() {
    if (!config_.enable_msg_trace) {
        return;
    }
    if constexpr (std::copy_constructible<Tr>) {
        tracer_ = detail::trace::start_tracer<Producer>(transport_,
                                                        config_.producer_group,
                                                        "PRODUCE",
                                                        config_.customized_trace_topic,
                                                        config_.trace_msg_batch_num);
    } else {
        throw InvalidArgument("enable_msg_trace needs a copyable transport (the trace producer's own)");
    }
}

}  // namespace rmq
