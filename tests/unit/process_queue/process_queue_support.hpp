#pragma once

// Helpers shared by the ProcessQueue tests: messages shaped like ProcessQueueTest's fixture.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <rmq/clock.hpp>
#include <rmq/message.hpp>
#include <rmq/process_queue.hpp>

namespace pq_test {

/// A message at `offset` with a body of `body_size` bytes.
inline rmq::MessageExt make_msg(std::int64_t offset, std::size_t body_size = 123) {
    rmq::MessageExt m("TopicTest", std::string(body_size, 'x'));
    m.set_queue_offset(offset);
    m.set_queue_id(0);
    m.set_broker_name("broker-a");
    return m;
}

/// Messages at offsets [first, first + count), each with a body of `body_size` bytes.
inline std::vector<rmq::MessageExt>
make_msgs(std::int64_t first, std::int64_t count, std::size_t body_size = 123) {
    std::vector<rmq::MessageExt> out;
    for (std::int64_t i = 0; i < count; ++i) {
        out.push_back(make_msg(first + i, body_size));
    }
    return out;
}

/// Messages at exactly these offsets.
inline std::vector<rmq::MessageExt> make_msgs_at(std::initializer_list<std::int64_t> offsets,
                                                 std::size_t body_size = 123) {
    std::vector<rmq::MessageExt> out;
    for (const auto o : offsets) {
        out.push_back(make_msg(o, body_size));
    }
    return out;
}

/// Offsets of a batch, for the offset-based calls.
inline std::vector<std::int64_t> offsets_of(const std::vector<rmq::MessageExt>& msgs) {
    std::vector<std::int64_t> out;
    for (const auto& m : msgs) {
        out.push_back(m.queue_offset());
    }
    return out;
}

}  // namespace pq_test
