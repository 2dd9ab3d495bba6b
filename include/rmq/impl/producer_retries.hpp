#pragma once

/// @file impl/producer_retries.hpp
/// rmq::Producer's sendDefaultImpl loop for the sends a caller waits for: the next queue after a retryable
/// failure (impl/producer_send_async.hpp does the same from the answers of asynchronous sends).

#include <cstdint>
#include <exception>
#include <string>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/producer.hpp>

namespace rmq {

/// Up to `total` attempts of `attempt(queue)`, each on the next write queue avoiding the broker of the
/// previous attempt, while the errors are retryable and send_msg_timeout (from `begin`) has not passed.
template <Transport Tr>
template <class Attempt>
SendResult
Producer<Tr>::with_retries(const std::string& topic, std::int64_t begin, int total, Attempt attempt) {
    const auto queues = write_queues(topic);
    std::exception_ptr last;
    std::string last_broker;
    for (int i = 0; i < total; ++i) {
        if (now() - begin > config_.send_msg_timeout) {
            throw Timeout(fmt::format("sendDefaultImpl call timeout: topic {}", topic));
        }
        const MessageQueue& mq = select_queue(*queues, last_broker);
        last_broker = mq.broker_name;
        try {
            SendResult r = attempt(mq);
            if (r.status != SendStatus::SendOk && config_.retry_another_broker_when_not_store_ok) {
                continue;
            }
            return r;
        } catch (...) {
            last = std::current_exception();
            if (!retry_after(topic, last)) {
                throw;
            }
        }
    }
    if (last) {
        std::rethrow_exception(last);
    }
    throw Error(fmt::format("Send [{}] times, still failed, topic {}", total, topic));
}

}  // namespace rmq
