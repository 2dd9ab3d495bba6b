#pragma once

/// @file detail/consumer/admin_responder.hpp
/// rmq::detail::AdminResponder: the consumer's answers to the admin tools (rmq::AdminHandler, registered
/// with transports that model rmq::HasAdminHandler): running info, offset reset, offset table,
/// consume-directly.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <rmq/admin.hpp>
#include <rmq/message.hpp>

#include <rmq/detail/consumer/consumption.hpp>
#include <rmq/detail/consumer/offset_committer.hpp>
#include <rmq/detail/consumer/state.hpp>

namespace rmq::detail {

template <class T>
class Rebalancer;

/// The handlers hold this, never the responder: shutdown clears `target` under the mutex, so a request still
/// running on a transport thread finishes before the consumer goes.
template <class Target>
struct AdminGate {
    std::mutex mutex;
    Target* target = nullptr;

    template <class Fn, class R = std::invoke_result_t<Fn, Target&>>
    R with(Fn&& fn, R fallback = R{}) {
        const std::lock_guard lock(mutex);
        return target != nullptr ? fn(*target) : std::move(fallback);
    }
};

template <class T>
class AdminResponder {
public:
    using Order = typename T::Order;
    using Status = typename Order::Status;
    using Context = typename Order::Context;
    using QueueEntry = typename ConsumerState<T>::QueueEntry;

    AdminResponder(ConsumerState<T>& state,
                   OffsetCommitter<T>& committer,
                   Rebalancer<T>& rebalancer,
                   Consumption<T>& consumption)
        : s_(state)
        , committer_(committer)
        , rebalancer_(rebalancer)
        , consumption_(consumption) {}

    /// Registers the handler (start()); close() unregisters it and waits for a request running now.
    void open();
    void close();

private:
    [[nodiscard]] ConsumerRunningInfo running_info() const;
    void reset_offsets(const std::string& topic, const QueueOffsets& offsets);
    void finish_reset(const std::vector<QueueEntry>& pending);
    [[nodiscard]] QueueOffsets offset_table(const std::string& topic) const;
    ConsumeDirectlyResult consume_directly(MessageExt msg, const std::string& broker_name);
    bool submit_consume_directly(MessageExt msg,
                                 const std::string& broker_name,
                                 std::function<void(ConsumeDirectlyResult)> done);
    static ConsumeDirectlyStatus directly_status(Status s);

    ConsumerState<T>& s_;
    OffsetCommitter<T>& committer_;
    Rebalancer<T>& rebalancer_;
    Consumption<T>& consumption_;
    std::shared_ptr<AdminGate<AdminResponder>> admin_gate_;
    std::int64_t start_wall_millis_ = 0;
};

}  // namespace rmq::detail

#include <rmq/detail/consumer/impl/admin_responder.hpp>
