#pragma once

/// @file impl/producer_send_async_batch.hpp
/// rmq::Producer::send_async(batch): Java's send(Collection<Message>, callback), sendDefaultImpl of the
/// MessageBatch in CommunicationMode.ASYNC, with retries as send_async(msg).

#include <future>
#include <span>
#include <utility>

#include <rmq/producer.hpp>

namespace rmq {

template <Transport Tr>
std::future<SendResult> Producer<Tr>::send_async(std::span<const Message> msgs)
requires HasSendBatch<Tr>
{
    auto [done, future] = detail::promised_done(futures_);
    check_running();
    const int total = 1 + config_.retry_times_when_send_async_failed;
    if constexpr (HasAsyncSend<Tr> && HasAsyncSendBatch<Tr>) {
        start_async(new_async(Message(), prepared_batch(msgs), total, std::move(done)));
    } else {
        submit(
            [this, batch = prepared_batch(msgs), begin = now(), total] {
                const detail::SendRecorder recorder(stats_, batch.front().topic(), transport_.clock());
                return with_retries(batch.front().topic(), begin, total, [&](const MessageQueue& mq) {
                    return send_batch_traced(batch, mq);
                });
            },
            std::move(done));
    }
    return std::move(future);
}

}  // namespace rmq
