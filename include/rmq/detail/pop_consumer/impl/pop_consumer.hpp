#pragma once

/// @file detail/pop_consumer/impl/pop_consumer.hpp
/// PopConsumer's definitions.

#include <algorithm>
#include <exception>
#include <set>
#include <utility>

#include <rmq/concepts/transport.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/pop_consumer/pop_consumer.hpp>
#include <rmq/detail/util/log.hpp>

namespace rmq::detail {

template <class T>
void PopConsumer<T>::update_pop_queues(const std::string& topic, const std::vector<MessageQueue>& queues) {
    const std::lock_guard lock(mutex_);
    if (stopped_ || s_.stopping.load()) {
        return;
    }
    for (auto it = loops_.begin(); it != loops_.end();) {
        if (it->first.topic == topic && std::find(queues.begin(), queues.end(), it->first) == queues.end()) {
            log_line(LogLevel::Info, "group [{}]: stops popping {}", s_.group, it->first);
            it->second->drop();
            let_go_.push_back(std::move(it->second));
            it = loops_.erase(it);
        } else {
            ++it;
        }
    }
    for (const auto& mq : queues) {
        if (mq.topic == topic && !loops_.contains(mq)) {
            log_line(LogLevel::Info, "group [{}]: pops {}", s_.group, mq);
            loops_.emplace(mq, start_loop(mq));
        }
    }
    reap_locked();
}

template <class T>
auto PopConsumer<T>::start_loop(const MessageQueue& mq) -> std::shared_ptr<Loop> {
    if constexpr (HasAsyncPop<typename T::Transport>) {
        return AsyncPopLoop<T>::start(s_, consume_, std::make_shared<PopQueue>(mq));
    } else {
        return std::make_shared<PopLoop<T>>(s_, consume_, std::make_shared<PopQueue>(mq));
    }
}

template <class T>
void PopConsumer<T>::pop_subscriptions() {
    std::set<std::string> topics;
    for (const auto& [topic, sub] : s_.subscriptions.copy()) {
        topics.insert(topic);
        update_pop_queues(topic, broker_queues(topic));
    }
    std::set<std::string> gone;
    for (const auto& mq : pop_queues()) {
        if (!topics.contains(mq.topic)) {
            gone.insert(mq.topic);
        }
    }
    for (const auto& topic : gone) {
        update_pop_queues(topic, {});
    }
}

/// (topic, broker, -1) for each broker with readable queues of `topic`; none when the route is unknown
/// (%RETRY%group before anything was sent back, a topic not created yet: logged).
template <class T>
std::vector<MessageQueue> PopConsumer<T>::broker_queues(const std::string& topic) const {
    std::vector<MessageQueue> out;
    try {
        for (const auto& mq : s_.transport.topic_route(topic).read_queues) {
            MessageQueue pop{topic, mq.broker_name, -1};
            if (std::find(out.begin(), out.end(), pop) == out.end()) {
                out.push_back(std::move(pop));
            }
        }
    } catch (const std::exception& e) {
        log_line(is_retry_topic(topic) ? LogLevel::Debug : LogLevel::Warn,
                 "group [{}]: no route for {}, not popped: {}",
                 s_.group,
                 topic,
                 e.what());
    }
    return out;
}

template <class T>
void PopConsumer<T>::stop() {
    std::map<MessageQueue, std::shared_ptr<Loop>> loops;
    std::vector<std::shared_ptr<Loop>> let_go;
    {
        const std::lock_guard lock(mutex_);
        stopped_ = true;
        loops.swap(loops_);
        let_go.swap(let_go_);
    }
    for (auto& [mq, loop] : loops) {
        loop->halt();  // all at once: each may finish a held POP request before it is joined below
    }
    if constexpr (HasPopInterrupt<typename T::Transport>) {
        s_.transport.interrupt_pops(s_.group);  // the held ones are answered now
    }
    loops.clear();
    let_go.clear();
    if constexpr (HasPopInterrupt<typename T::Transport>) {
        s_.transport.resume_pops(s_.group);
    }
}

template <class T>
std::vector<MessageQueue> PopConsumer<T>::pop_queues() const {
    const std::lock_guard lock(mutex_);
    std::vector<MessageQueue> out;
    out.reserve(loops_.size());
    for (const auto& [mq, loop] : loops_) {
        out.push_back(mq);
    }
    return out;
}

template <class T>
void PopConsumer<T>::reap_locked() {
    std::erase_if(let_go_, [](const auto& loop) { return loop->finished(); });
}

}  // namespace rmq::detail
