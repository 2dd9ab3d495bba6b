#pragma once

/// @file simple_consumer.hpp
/// rmq::SimpleConsumer: RocketMQ 5.x POP consumption with the semantics of Java's gRPC SimpleConsumer. The
/// application receives messages when it wants them; each stays invisible to the group for the duration it
/// asked, and comes back (reconsume times + 1) unless acked in time. No rebalance: every member of a group
/// pops from every queue. See docs/pop.md.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/concepts/transport.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_selector.hpp>
#include <rmq/pop.hpp>
#include <rmq/simple_consumer_config.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/simple_consumer/acks.hpp>
#include <rmq/detail/util/caller_futures.hpp>

namespace rmq {

/// POP consumer (5.x brokers, or the embedded one).
///
/// @code
/// rmq::SimpleConsumer consumer{transport, rmq::SimpleConsumerConfig{.consumer_group = "g"}};
/// consumer.subscribe("TopicTest", rmq::MessageSelector::by_tag("*"));
/// for (auto& msg : consumer.receive(16, std::chrono::seconds(30))) {
///     handle(msg);
///     consumer.ack(msg);
/// }
/// @endcode
///
/// Thread-safe: receive, ack and change_invisible_duration may be called from any thread. A broker without
/// POP (RocketMQ 4.x) makes them throw rmq::PopUnsupported.
template <class Tr>
requires HasTopicRoute<Tr> && HasPop<Tr>
class SimpleConsumer {
public:
    /// Most messages one receive asks a broker for (PopMessageProcessor refuses more).
    static constexpr std::int32_t max_receive_messages = 32;

    /// Throws rmq::InvalidArgument for an invalid configuration.
    SimpleConsumer(Tr transport, SimpleConsumerConfig config)
        : transport_(std::move(transport))
        , config_(validated(std::move(config))) {}

    /// Subscribes `topic` with `selector` (replacing an earlier subscription of the topic). The route is
    /// looked up now: rmq::BrokerError(topic_not_exist) for an unknown topic.
    void subscribe(const std::string& topic, const MessageSelector& selector = MessageSelector::by_tag("*")) {
        check_topic(topic);
        (void)transport_.topic_route(topic);
        const std::lock_guard lock(mutex_);
        subscriptions_.insert_or_assign(topic, selector);
    }

    /// Stops receiving from `topic`.
    void unsubscribe(const std::string& topic) {
        const std::lock_guard lock(mutex_);
        subscriptions_.erase(topic);
    }

    /// The subscribed topics with their selectors.
    [[nodiscard]] std::map<std::string, MessageSelector> subscriptions() const {
        const std::lock_guard lock(mutex_);
        return subscriptions_;
    }

    /// Pops up to `max_messages` (1..32) messages, visiting the (topic, broker) pairs of the subscriptions
    /// round robin from where the last receive stopped, until one has messages (the last one visited may
    /// hold the request up to await_duration, long polling). Each message carries its receipt (property
    /// POP_CK, rmq::PopReceipt::of) and stays invisible to the group for `invisible_duration`. Empty when no
    /// broker had a message. Throws rmq::InvalidArgument for a bad argument or no subscription,
    /// rmq::PopUnsupported on a 4.x broker, rmq::BrokerError for other refusals.
    std::vector<MessageExt> receive(std::int32_t max_messages, std::chrono::milliseconds invisible_duration) {
        if (max_messages < 1 || max_messages > max_receive_messages) {
            throw InvalidArgument(fmt::format(
                "receive: max_messages {} is not in [1, {}]", max_messages, max_receive_messages));
        }
        if (invisible_duration.count() <= 0) {
            throw InvalidArgument(
                fmt::format("receive: invisible_duration {} ms is not positive", invisible_duration.count()));
        }
        const auto targets = pop_targets();
        if (targets.empty()) {
            throw InvalidArgument(
                fmt::format("receive: consumer group {} subscribes no topic", config_.consumer_group));
        }
        for (std::size_t i = 0; i < targets.size(); ++i) {
            PopArgs args = targets[i];
            args.max_msg_nums = max_messages;
            args.invisible_time_millis = invisible_duration.count();
            if (i + 1 < targets.size()) {
                args.poll_time_millis = 0;  // only the last target (rotating) waits: one await_duration
            }
            auto result = transport_.pop_message(args);
            if (!result.msg_found_list.empty()) {
                return std::move(result.msg_found_list);
            }
        }
        return {};
    }

    /// Acknowledges a received message: the group is done with it. A message whose invisible duration has
    /// passed may already be on its way back (a spent receipt is ignored by the broker). Throws
    /// rmq::InvalidArgument for a message without receipt.
    void ack(const MessageExt& msg) {
        AckArgs args;
        args.consumer_group = config_.consumer_group;
        args.topic = msg.topic();
        args.extra_info = receipt_text(msg);
        transport_.ack_message(args);
    }

    /// Java's ackAsync: ack(msg) without waiting for the broker; the future is ready once it answered and
    /// holds what ack(msg) would have thrown. Throws at once what ack(msg) throws before sending (no receipt,
    /// no route to the receipt's broker). Needs a transport with rmq::HasAsyncAck.
    std::future<void> ack_async(const MessageExt& msg)
    requires HasAsyncAck<Tr>
    {
        AckArgs args;
        args.consumer_group = config_.consumer_group;
        args.topic = msg.topic();
        args.extra_info = receipt_text(msg);
        auto [completion, future] = futures_.make<void>();
        transport_.ack_message(args,
                               [completion = std::move(completion)](const std::exception_ptr& error) mutable {
                                   if (error) {
                                       completion.set_exception(error);
                                   } else {
                                       completion.set_value();
                                   }
                               });
        return std::move(future);
    }

    /// Acknowledges received messages: with a transport that has rmq::HasBatchAck one BATCH_ACK_MESSAGE per
    /// broker the receipts name (as Java's gRPC proxy batches an AckMessageRequest), else one ack each. Every
    /// receipt is read first: rmq::InvalidArgument, and nothing sent, for a message without one. Then every
    /// request is made even if one fails; when none acked anything, the first failure is thrown as ack(msg)
    /// throws it, when some did, rmq::PartialAckError naming the messages not acked.
    void ack(std::span<const MessageExt> msgs) {
        auto groups = detail::ack_groups(msgs, config_.consumer_group);
        detail::AckOutcomes outcomes(msgs.size());
        for (const auto& g : groups) {
            if constexpr (HasBatchAck<Tr>) {
                try {
                    transport_.batch_ack_message(g.args);
                } catch (...) {
                    outcomes.fail(g.indices, std::current_exception());
                }
            } else {
                for (std::size_t i = 0; i < g.indices.size(); ++i) {
                    try {
                        transport_.ack_message(g.args.acks[i]);
                    } catch (...) {
                        outcomes.fail({g.indices[i]}, std::current_exception());
                    }
                }
            }
        }
        outcomes.rethrow();
    }

    /// ack(msgs) without waiting: the brokers' requests go out at once, the future is ready once each
    /// answered and holds what ack(msgs) would have thrown. Throws at once for a message without receipt
    /// (nothing sent). Needs a transport with rmq::HasBatchAck.
    std::future<void> ack_async(std::span<const MessageExt> msgs)
    requires HasBatchAck<Tr>
    {
        struct Pending {
            Pending(std::size_t total,
                    std::size_t requests,
                    detail::CallerFutures::Completion<void> completion)
                : outcomes(total)
                , left(requests)
                , completion(std::move(completion)) {}

            detail::AckOutcomes outcomes;
            std::atomic<std::size_t> left;
            detail::CallerFutures::Completion<void> completion;

            void done() {
                if (--left == 0) {
                    try {
                        outcomes.rethrow();
                        completion.set_value();
                    } catch (...) {
                        completion.set_exception(std::current_exception());
                    }
                }
            }
        };

        auto groups = detail::ack_groups(msgs, config_.consumer_group);
        auto [completion, future] = futures_.make<void>();
        auto pending = std::make_shared<Pending>(msgs.size(), groups.size() + 1, std::move(completion));
        for (auto& g : groups) {
            try {
                transport_.batch_ack_message(g.args,
                                             [pending, indices = g.indices](const std::exception_ptr& e) {
                                                 if (e) {
                                                     pending->outcomes.fail(indices, e);
                                                 }
                                                 pending->done();
                                             });
            } catch (...) {  // not sent (no route): that broker's messages failed, the others go on
                pending->outcomes.fail(g.indices, std::current_exception());
                pending->done();
            }
        }
        pending->done();  // the extra count: nothing completes before every request is out
        return std::move(future);
    }

    /// Makes a received message invisible for `invisible_duration` from now (0: visible again at once) and
    /// stores the new receipt in `msg` (the old one is spent: ack with the updated message). Throws
    /// rmq::InvalidArgument for a message without receipt or a negative duration; the embedded broker
    /// answers a spent receipt with rmq::BrokerError(no_message).
    void change_invisible_duration(MessageExt& msg, std::chrono::milliseconds invisible_duration) {
        if (invisible_duration.count() < 0) {
            throw InvalidArgument(
                fmt::format("change_invisible_duration: {} ms is negative", invisible_duration.count()));
        }
        ChangeInvisibleTimeArgs args;
        args.consumer_group = config_.consumer_group;
        args.topic = msg.topic();
        args.extra_info = receipt_text(msg);
        args.invisible_time_millis = invisible_duration.count();
        msg.set_property(property::pop_ck, transport_.change_invisible_time(args));
    }

    [[nodiscard]] const SimpleConsumerConfig& config() const noexcept { return config_; }

    [[nodiscard]] Tr& transport() noexcept { return transport_; }

private:
    static SimpleConsumerConfig validated(SimpleConsumerConfig config) {
        config.validate();
        return config;
    }

    static std::string receipt_text(const MessageExt& msg) { return PopReceipt::of(msg).to_string(); }

    /// One pop per (topic, broker) of the subscriptions, in round robin order from the next start.
    std::vector<PopArgs> pop_targets() {
        std::map<std::string, MessageSelector> subs;
        {
            const std::lock_guard lock(mutex_);
            subs = subscriptions_;
        }
        std::vector<PopArgs> out;
        for (const auto& [topic, selector] : subs) {
            std::vector<std::string> brokers;
            for (const auto& mq : transport_.topic_route(topic).read_queues) {
                if (std::find(brokers.begin(), brokers.end(), mq.broker_name) == brokers.end()) {
                    brokers.push_back(mq.broker_name);
                }
            }
            for (auto& broker : brokers) {
                PopArgs args;
                args.consumer_group = config_.consumer_group;
                args.topic = topic;
                args.broker_name = std::move(broker);
                args.poll_time_millis = config_.await_duration;
                args.init_mode = config_.init_mode;
                args.order = config_.fifo;
                args.expression_type = selector.expression_type();
                args.expression = selector.expression().empty() ? "*" : selector.expression();
                out.push_back(std::move(args));
            }
        }
        if (!out.empty()) {
            const std::lock_guard lock(mutex_);
            std::rotate(
                out.begin(), out.begin() + static_cast<std::ptrdiff_t>(next_ % out.size()), out.end());
            ++next_;
        }
        return out;
    }

    Tr transport_;
    const SimpleConsumerConfig config_;
    mutable std::mutex mutex_;
    std::map<std::string, MessageSelector> subscriptions_;
    std::size_t next_ = 0;
    /// Where the io thread leaves the futures of ack_async, released on a caller's thread.
    detail::CallerFutures futures_;
};

}  // namespace rmq
