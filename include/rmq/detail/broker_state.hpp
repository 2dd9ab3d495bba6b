#pragma once

/// @file detail/broker_state.hpp
/// The embedded broker's state and rules (store, pull, long polling, offsets, membership, locks, send-back,
/// delays). Shared by rmq::InProcessBroker and every rmq::InProcessTransport handle.

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rmq/clock.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/subscription.hpp>
#include <rmq/topic.hpp>

#include <rmq/detail/broker_config.hpp>
#include <rmq/detail/util/crc32.hpp>

namespace rmq {

/// One client of a consumer group as the embedded broker sees it (see InProcessBroker::group_members).
struct GroupMember {
    std::string client_id;
    /// The ConsumerData of this group in the client's last heartbeat.
    ConsumerData consumer_data;
    /// Clock steady time of the last heartbeat.
    std::int64_t last_update_timestamp = 0;
};

namespace detail {

/// TopicValidator.RMQ_SYS_SCHEDULE_TOPIC: where delayed messages wait.
inline constexpr std::string_view schedule_topic = "SCHEDULE_TOPIC_XXXX";
/// The store host every message of the embedded broker carries.
inline constexpr std::string_view broker_store_host = "127.0.0.1:10911";
/// Born host of messages sent through an in-process transport.
inline constexpr std::string_view in_process_born_host = "127.0.0.1:0";
/// ConsumeQueue.CQ_STORE_UNIT_SIZE.
inline constexpr std::int64_t consume_queue_unit_size = 20;
/// MessageStoreConfig.mappedFileSizeConsumeQueue / unit: one consume-queue file holds 300000 units.
inline constexpr std::int64_t consume_queue_file_units = 300000;
/// DefaultMessageStore.getMessage: the scan covers at least 16000 bytes of consume queue.
inline constexpr std::int64_t max_filter_message_bytes = 16000;
/// PullRequestHoldService: how often held pulls are re-checked with long polling on.
inline constexpr std::int64_t hold_check_interval_millis = 5000;
/// BrokerConfig.brokerClusterName default, stored in the CLUSTER property of sent messages.
inline constexpr std::string_view broker_cluster_name = "DefaultCluster";
/// MessageConst.PROPERTY_CLUSTER.
inline constexpr std::string_view property_cluster = "CLUSTER";

/// MessageDecoder.createMessageId for store host 127.0.0.1:10911: hex of ip (4 bytes), port (4 bytes) and
/// commit log offset (8 bytes), upper case.
inline std::string offset_message_id(std::int64_t commit_log_offset) {
    return fmt::format("7F00000100002A9F{:016X}", static_cast<std::uint64_t>(commit_log_offset));
}


/// CommitLog.calMsgLength for IPv4 hosts: 91 bytes of fixed fields plus body, topic and properties.
inline std::int32_t stored_message_size(const MessageExt& m, std::size_t properties_length) {
    return static_cast<std::int32_t>(91 + m.body().size() + m.topic().size() + properties_length);
}

/// MessageExtBrokerInner.tagsString2tagsCode: Java's hashCode of TAGS, 0 without tags.
inline std::int64_t tags_code_of(const Message& m) {
    const auto tags = m.tags();
    return tags.empty() ? 0 : tag_hash(tags);
}

/// ExpressionMessageFilter.isMatchedByConsumeQueue for TAG subscriptions.
inline bool matched_by_consume_queue(const std::optional<SubscriptionData>& sub, std::int64_t tags_code) {
    if (!sub || sub->class_filter_mode) {
        return true;
    }
    if (sub->sub_string == sub_all) {
        return true;
    }
    return sub->code_set.contains(static_cast<std::int32_t>(tags_code));
}

/// Where a transport handle's notifications go; set_notification_handler replaces the handler.
struct NotificationSlot {
    std::mutex mutex;
    NotificationHandler handler;
};

/// The embedded broker. Every public member locks `mutex_`; callbacks (pull completions, notifications)
/// are collected while locked and handed to the dispatcher thread, which runs them without the lock.
class BrokerState {
public:
    using Task = std::function<void()>;
    using Tasks = std::vector<Task>;

    explicit BrokerState(BrokerConfig config)
        : config_(std::move(config))
        , delay_levels_(parse_delay_levels(config_.message_delay_level))
        , clock_(config_.clock ? config_.clock : system_clock()) {
        check_config();
        if (config_.auto_create_topic_enable) {
            topics_[std::string(auto_create_topic_key_topic)].queues.resize(
                static_cast<std::size_t>(config_.default_topic_queue_nums));
        }
    }

    BrokerState(const BrokerState&) = delete;
    BrokerState& operator=(const BrokerState&) = delete;

    ~BrokerState() { stop(); }

    /// Starts the dispatcher thread and (manual clocks) the clock listener. `self` is this state.
    void start(const std::shared_ptr<BrokerState>& self) {
        manual_ = clock_->is_manual();
        {
            const std::lock_guard lock(mutex_);
            started_ = true;
            next_hold_check_ = clock_->steady_millis() + hold_check_interval();
        }
        thread_ = std::thread([this] { run(); });
        thread_id_ = thread_.get_id();
        std::weak_ptr<BrokerState> weak = self;
        listener_id_ = clock_->add_listener([weak] {
            if (auto s = weak.lock()) {
                s->on_clock_advance();
            }
        });
    }

    /// Stops the dispatcher after it ran every queued task, then answers held pulls with SYSTEM_ERROR.
    void stop() {
        {
            const std::lock_guard lock(mutex_);
            if (stopping_) {
                return;
            }
            stopping_ = true;
            cv_.notify_all();
        }
        clock_->remove_listener(listener_id_);
        if (thread_.joinable()) {
            thread_.join();
        }
        Tasks out;
        {
            const std::lock_guard lock(mutex_);
            stopped_ = true;  // the dispatcher set it already if it ran
            for (auto& [key, list] : held_) {
                for (auto& h : list) {
                    out.push_back([cb = std::move(h.callback)] {
                        cb(Outcome<PullResult>(response_code::system_error, "the broker is shut down"));
                    });
                }
            }
            held_.clear();
            idle_cv_.notify_all();
        }
        for (auto& t : out) {
            run_task(t);
        }
    }

    [[nodiscard]] const BrokerConfig& config() const noexcept { return config_; }

    [[nodiscard]] const std::shared_ptr<Clock>& clock() const noexcept { return clock_; }

    /// Waits until every callback queued so far has run (not callable from a callback).
    void drain() {
        if (std::this_thread::get_id() == thread_id_) {
            throw IllegalState("InProcessBroker::drain called from a broker callback");
        }
        std::unique_lock lock(mutex_);
        idle_cv_.wait(lock, [this] { return stopped_ || (tasks_.empty() && !running_task_); });
    }

    // ---- topics and store ------------------------------------------------------------------------------

    void create_topic(std::string_view topic, std::int32_t queue_count) {
        check_topic(topic);
        if (queue_count <= 0 || queue_count > 1024) {
            throw InvalidArgument(
                fmt::format("create_topic {}: queue count {} is not in [1, 1024]", topic, queue_count));
        }
        const std::lock_guard lock(mutex_);
        auto& t = topics_[std::string(topic)];
        if (t.queues.size() < static_cast<std::size_t>(queue_count)) {
            t.queues.resize(static_cast<std::size_t>(queue_count));
        }
    }

    [[nodiscard]] bool has_topic(std::string_view topic) const {
        const std::lock_guard lock(mutex_);
        return topics_.contains(std::string(topic));
    }

    TopicRoute topic_route(const std::string& topic) const {
        const std::lock_guard lock(mutex_);
        take_fault_locked(BrokerRequest::TopicRoute);
        const auto it = topics_.find(topic);
        if (it == topics_.end()) {
            throw BrokerError(response_code::topic_not_exist,
                              fmt::format("No topic route info in name server for the topic: {}", topic));
        }
        TopicRoute route;
        for (std::size_t i = 0; i < it->second.queues.size(); ++i) {
            MessageQueue mq{topic, config_.broker_name, static_cast<std::int32_t>(i)};
            route.read_queues.push_back(mq);
            route.write_queues.push_back(std::move(mq));
        }
        return route;
    }

    SendResult send(const Message& msg, const MessageQueue& mq) {
        check_own_queue(mq);
        if (msg.topic() != mq.topic) {
            throw InvalidArgument(
                fmt::format("message's topic [{}] is not the queue's topic [{}]", msg.topic(), mq.topic));
        }
        check_sendable_topic(mq.topic);
        if (msg.body().size() > static_cast<std::size_t>(config_.max_message_size)) {
            throw BrokerError(response_code::message_illegal,
                              fmt::format("the message is illegal: body size {} exceeds max_message_size {}",
                                          msg.body().size(),
                                          config_.max_message_size));
        }
        Tasks out;
        SendResult result;
        {
            const std::lock_guard lock(mutex_);
            check_running();
            take_fault_locked(BrokerRequest::Send);
            auto it = topics_.find(mq.topic);
            if (it == topics_.end()) {
                if (!config_.auto_create_topic_enable) {
                    throw BrokerError(response_code::topic_not_exist,
                                      fmt::format("topic[{}] not exist, apply first please!", mq.topic));
                }
                it = topics_.emplace(mq.topic, TopicData{}).first;
                it->second.queues.resize(static_cast<std::size_t>(config_.default_topic_queue_nums));
            }
            const auto queue_nums = static_cast<std::int32_t>(it->second.queues.size());
            if (mq.queue_id < 0 || mq.queue_id >= queue_nums) {
                throw BrokerError(response_code::system_error,
                                  fmt::format("request queueId[{}] is illegal, Topic :{} TopicConfig: "
                                              "writeQueueNums {} Producer: {}",
                                              mq.queue_id,
                                              mq.topic,
                                              queue_nums,
                                              in_process_born_host));
            }
            MessageExt inner;
            inner.set_topic(mq.topic);
            inner.set_queue_id(mq.queue_id);
            inner.set_flag(msg.flag());
            inner.set_properties(msg.properties());
            inner.set_body(msg.body());
            inner.set_born_timestamp(clock_->wall_millis());
            inner.set_born_host(std::string(in_process_born_host));
            inner.set_property(property_cluster, broker_cluster_name);
            // SendMessageProcessor: the producer moves these properties into the request header.
            if (is_retry_topic(mq.topic)) {
                const std::int32_t reconsume = parse_int(inner.property_view(property::reconsume_time), 0);
                const std::int32_t max_times =
                    parse_int(inner.property_view(property::max_reconsume_times), config_.retry_max_times);
                inner.clear_property(property::reconsume_time);
                inner.clear_property(property::max_reconsume_times);
                inner.set_reconsume_times(reconsume);
                if (reconsume >= max_times) {  // handleRetryAndDLQ
                    const std::string group(mq.topic.substr(retry_group_topic_prefix.size()));
                    inner.set_topic(dlq_topic(group));
                    inner.set_queue_id(0);
                    inner.set_delay_time_level(0);
                    ensure_queue_locked(inner.topic(), 0);
                }
            }
            const auto stored = store_locked(std::move(inner), out);
            result.status = SendStatus::SendOk;
            result.msg_id = stored->msg_id();
            result.offset_msg_id = stored->offset_msg_id();
            result.message_queue = mq;
            result.queue_offset = stored->queue_offset();
        }
        dispatch(std::move(out));
        return result;
    }

    /// CONSUMER_SEND_MSG_BACK (SendMessageProcessor.asyncConsumerSendMsgBack, 4.9.8).
    void send_back(const SendBackArgs& args) {
        check_group(args.group);
        Tasks out;
        {
            const std::lock_guard lock(mutex_);
            check_running();
            take_fault_locked(BrokerRequest::SendBack);
            require_subscription_group_locked(args.group);
            const auto found = commit_log_.find(args.message.commit_log_offset());
            if (found == commit_log_.end()) {
                throw BrokerError(
                    response_code::system_error,
                    fmt::format("look message by offset failed, {}", args.message.commit_log_offset()));
            }
            const MessageExt& original = *found->second;
            MessageExt inner;
            inner.set_properties(original.properties());
            if (!inner.has_property(property::retry_topic)) {
                inner.set_property(property::retry_topic, original.topic());
            }
            inner.set_property(property::wait_store_msg_ok, "false");  // msgExt.setWaitStoreMsgOK(false)
            std::int32_t delay_level = args.delay_level;
            const std::int32_t max_times = args.max_reconsume_times;
            if (original.reconsume_times() >= max_times || delay_level < 0) {
                inner.set_topic(dlq_topic(args.group));
                inner.set_queue_id(0);
                ensure_queue_locked(inner.topic(), 0);
                inner.set_delay_time_level(0);  // DELAY=0: a retried message's DELAY would delay it again
            } else {
                if (delay_level == 0) {
                    delay_level = 3 + original.reconsume_times();
                }
                inner.set_topic(retry_topic(args.group));
                inner.set_queue_id(0);
                ensure_queue_locked(inner.topic(), 0);
                inner.set_delay_time_level(delay_level);
            }
            inner.set_body(original.body());
            inner.set_flag(original.flag());
            inner.set_sys_flag(original.sys_flag());
            inner.set_born_timestamp(original.born_timestamp());
            inner.set_born_host(original.born_host());
            inner.set_reconsume_times(original.reconsume_times() + 1);
            const auto origin = original.property_view(property::origin_message_id);
            inner.set_property(property::origin_message_id,
                               origin.empty() ? original.offset_msg_id() : std::string(origin));
            store_locked(std::move(inner), out);
        }
        dispatch(std::move(out));
    }

    std::int64_t min_offset(const MessageQueue& mq) const {
        check_own_queue(mq);
        const std::lock_guard lock(mutex_);
        const auto* q = find_queue_locked(mq.topic, mq.queue_id);
        return q ? q->base : 0;
    }

    std::int64_t max_offset(const MessageQueue& mq) const {
        check_own_queue(mq);
        const std::lock_guard lock(mutex_);
        const auto* q = find_queue_locked(mq.topic, mq.queue_id);
        return q ? q->next : 0;
    }

    /// First offset whose store timestamp is >= `timestamp`; the max offset when every message is older.
    std::int64_t search_offset(const MessageQueue& mq, std::int64_t timestamp) const {
        check_own_queue(mq);
        const std::lock_guard lock(mutex_);
        const auto* q = find_queue_locked(mq.topic, mq.queue_id);
        if (q == nullptr) {
            return 0;
        }
        const auto it = std::partition_point(q->entries.begin(), q->entries.end(), [&](const StoredEntry& e) {
            return e.msg->store_timestamp() < timestamp;
        });
        return q->base + static_cast<std::int64_t>(it - q->entries.begin());
    }

    /// Drops the messages of a queue below `offset` (what file expiry does to a real broker), so pulls below
    /// the new min offset get OFFSET_TOO_SMALL.
    void delete_messages_before(const MessageQueue& mq, std::int64_t offset) {
        check_own_queue(mq);
        const std::lock_guard lock(mutex_);
        auto* q = find_queue_locked(mq.topic, mq.queue_id);
        if (q == nullptr) {
            throw InvalidArgument(fmt::format("delete_messages_before: no queue {}", mq));
        }
        while (q->base < offset && !q->entries.empty()) {
            commit_log_.erase(q->entries.front().msg->commit_log_offset());
            q->entries.pop_front();
            ++q->base;
        }
    }

    /// Every message stored in a queue from `from` on (introspection; SCHEDULE_TOPIC_XXXX included).
    std::vector<MessageExt> messages(std::string_view topic, std::int32_t queue_id, std::int64_t from) const {
        const std::lock_guard lock(mutex_);
        std::vector<MessageExt> out;
        const auto* q = find_queue_locked(std::string(topic), queue_id);
        if (q == nullptr) {
            return out;
        }
        for (std::int64_t o = std::max(from, q->base); o < q->next; ++o) {
            out.push_back(*q->entries[static_cast<std::size_t>(o - q->base)].msg);
        }
        return out;
    }

    [[nodiscard]] std::size_t scheduled_count() const {
        const std::lock_guard lock(mutex_);
        return scheduled_.size();
    }

    [[nodiscard]] std::size_t held_pull_count() const {
        const std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (const auto& [key, list] : held_) {
            n += list.size();
        }
        return n;
    }

    // ---- pull ------------------------------------------------------------------------------------------

    /// With `post`, an answer ready now is posted there (after the lock is released) rather than dispatched.
    void pull(const PullArgs& args, PullCallback callback, const PostToCaller* post = nullptr) {
        Tasks out;
        std::optional<Task> ready;
        std::optional<Outcome<PullResult>> immediate;
        {
            const std::lock_guard lock(mutex_);
            if (stopping_) {
                immediate.emplace(response_code::system_error, "the broker is shut down");
            } else if (const auto fault = faults_.find(BrokerRequest::Pull); fault != faults_.end()) {
                out.push_back([cb = std::move(callback), code = fault->second.code]() mutable {
                    cb(Outcome<PullResult>(code, "injected failure of PULL_MESSAGE"));
                });
                if (--fault->second.remaining == 0) {
                    faults_.erase(fault);
                }
            } else {
                auto r = process_pull_locked(args, true, callback);
                if (r) {
                    Task task = [cb = std::move(callback), res = std::move(*r)]() mutable {
                        cb(std::move(res));
                    };
                    if (post != nullptr && *post) {
                        ready.emplace(std::move(task));
                    } else {
                        out.push_back(std::move(task));
                    }
                }
            }
        }
        if (immediate) {
            callback(std::move(*immediate));
            return;
        }
        if (ready) {
            (*post)(std::move(*ready));
            return;
        }
        dispatch(std::move(out));
    }

    // ---- offsets ---------------------------------------------------------------------------------------

    /// QUERY_CONSUMER_OFFSET (4.9.8): the stored offset; else 0 when the queue's min offset is <= 0 and its
    /// first message is in memory (always, here); else nullopt (QUERY_NOT_FOUND).
    std::optional<std::int64_t> query_consumer_offset(const std::string& group,
                                                      const MessageQueue& mq) const {
        check_own_queue(mq);
        const std::lock_guard lock(mutex_);
        take_fault_locked(BrokerRequest::QueryConsumerOffset);
        if (const auto it = offsets_.find(offset_key(group, mq)); it != offsets_.end()) {
            return it->second;
        }
        const auto* q = find_queue_locked(mq.topic, mq.queue_id);
        const std::int64_t min = q ? q->base : 0;
        if (min <= 0) {
            return 0;
        }
        return std::nullopt;
    }

    /// The offset stored for (group, queue), without QUERY_CONSUMER_OFFSET's "0 when in memory" rule.
    std::optional<std::int64_t> stored_consumer_offset(const std::string& group,
                                                       const MessageQueue& mq) const {
        const std::lock_guard lock(mutex_);
        if (const auto it = offsets_.find(offset_key(group, mq)); it != offsets_.end()) {
            return it->second;
        }
        return std::nullopt;
    }

    void update_consumer_offset(const std::string& group, const MessageQueue& mq, std::int64_t offset) {
        check_group(group);
        check_own_queue(mq);
        if (offset < 0) {
            throw InvalidArgument(
                fmt::format("illegal consumer offset {} for {} of group {}", offset, mq, group));
        }
        const std::lock_guard lock(mutex_);
        take_fault_locked(BrokerRequest::UpdateConsumerOffset);
        offsets_[offset_key(group, mq)] = offset;
    }

    // ---- membership ------------------------------------------------------------------------------------

    std::uint64_t register_handle(std::shared_ptr<NotificationSlot> slot) {
        const std::lock_guard lock(mutex_);
        const std::uint64_t id = ++next_handle_id_;
        handles_.emplace(id, std::move(slot));
        return id;
    }

    /// ClientHousekeepingService.doChannelCloseEvent: the handle's clients leave their groups.
    void close_handle(std::uint64_t handle_id) {
        Tasks out;
        {
            const std::lock_guard lock(mutex_);
            handles_.erase(handle_id);
            for (auto git = groups_.begin(); git != groups_.end();) {
                const auto removed = std::erase_if(
                    git->second.channels, [&](const auto& e) { return e.second.handle_id == handle_id; });
                if (removed > 0) {
                    notify_change_locked(git->first, git->second, out);
                }
                git = git->second.channels.empty() && removed > 0 ? groups_.erase(git) : std::next(git);
            }
        }
        dispatch(std::move(out));
    }

    /// HEART_BEAT (ConsumerManager.registerConsumer for every ConsumerData).
    void heartbeat(const HeartbeatData& hb, std::uint64_t handle_id) {
        if (hb.client_id.empty()) {
            throw InvalidArgument("heartbeat without client id");
        }
        for (const auto& cd : hb.consumer_data_set) {
            check_group(cd.group_name);
        }
        Tasks out;
        {
            const std::lock_guard lock(mutex_);
            check_running();
            take_fault_locked(BrokerRequest::Heartbeat);
            for (const auto& cd : hb.consumer_data_set) {
                // ClientManageProcessor.heartBeat: the retry topic only when the group config exists (or is
                // auto-created); the client is registered either way.
                if (config_.auto_create_subscription_group) {
                    subscription_groups_.insert(cd.group_name);
                }
                if (subscription_groups_.contains(cd.group_name)) {
                    ensure_queue_locked(retry_topic(cd.group_name), 0);
                }
                auto& group = groups_[cd.group_name];
                group.consume_type = cd.consume_type;
                group.message_model = cd.message_model;
                group.consume_from_where = cd.consume_from_where;
                bool updated = false;
                auto [it, inserted] = group.channels.try_emplace(hb.client_id);
                if (inserted) {
                    updated = true;
                }
                it->second.client_id = hb.client_id;
                it->second.handle_id = handle_id;
                it->second.last_update = clock_->steady_millis();
                it->second.data = cd;
                // ConsumerGroupInfo.updateSubscription: one SubscriptionData per topic, newest subVersion
                // wins, topics this heartbeat does not carry are removed.
                std::set<std::string> carried;
                for (const auto& sub : cd.subscription_data_set) {
                    carried.insert(sub.topic);
                    const auto old = group.subscriptions.find(sub.topic);
                    if (old == group.subscriptions.end()) {
                        group.subscriptions.emplace(sub.topic, sub);
                        updated = true;
                    } else if (sub.sub_version > old->second.sub_version) {
                        old->second = sub;
                    }
                }
                if (std::erase_if(group.subscriptions,
                                  [&](const auto& e) { return !carried.contains(e.first); }) > 0) {
                    updated = true;
                }
                if (updated) {
                    notify_change_locked(cd.group_name, group, out);
                }
            }
        }
        dispatch(std::move(out));
    }

    /// UNREGISTER_CLIENT: the client leaves the consumer group (producer groups are not tracked).
    void unregister_client(const std::string& client_id,
                           const std::string& /*producer_group*/,
                           const std::string& consumer_group) {
        Tasks out;
        {
            const std::lock_guard lock(mutex_);
            if (consumer_group.empty()) {
                return;
            }
            const auto git = groups_.find(consumer_group);
            if (git == groups_.end()) {
                return;
            }
            git->second.channels.erase(client_id);
            notify_change_locked(consumer_group, git->second, out);
            if (git->second.channels.empty()) {
                groups_.erase(git);
            }
        }
        dispatch(std::move(out));
    }

    /// GET_CONSUMER_LIST_BY_GROUP: the client ids of a group, sorted. Throws BrokerError(SYSTEM_ERROR) when
    /// the group has no member, as the Java broker answers.
    std::vector<std::string> consumer_id_list(const std::string& group) const {
        const std::lock_guard lock(mutex_);
        take_fault_locked(BrokerRequest::ConsumerIdList);
        const auto it = groups_.find(group);
        if (it == groups_.end() || it->second.channels.empty()) {
            throw BrokerError(response_code::system_error,
                              fmt::format("no consumer for this group, {}", group));
        }
        std::vector<std::string> ids;
        for (const auto& [id, ch] : it->second.channels) {
            ids.push_back(id);
        }
        return ids;
    }

    std::vector<GroupMember> group_members(const std::string& group) const {
        const std::lock_guard lock(mutex_);
        std::vector<GroupMember> out;
        if (const auto it = groups_.find(group); it != groups_.end()) {
            for (const auto& [id, ch] : it->second.channels) {
                out.push_back(GroupMember{id, ch.data, ch.last_update});
            }
        }
        return out;
    }

    std::optional<SubscriptionData> subscription(const std::string& group, const std::string& topic) const {
        const std::lock_guard lock(mutex_);
        if (const auto it = groups_.find(group); it != groups_.end()) {
            if (const auto s = it->second.subscriptions.find(topic); s != it->second.subscriptions.end()) {
                return s->second;
            }
        }
        return std::nullopt;
    }

    // ---- orderly locks ---------------------------------------------------------------------------------

    /// RebalanceLockManager.tryLockBatch.
    std::vector<MessageQueue>
    lock_batch(const std::string& group, const std::string& client_id, const std::vector<MessageQueue>& mqs) {
        check_group(group);
        const std::lock_guard lock(mutex_);
        take_fault_locked(BrokerRequest::LockBatch);
        const std::int64_t now = clock_->steady_millis();
        auto& table = locks_[group];
        std::vector<MessageQueue> granted;
        for (const auto& mq : mqs) {
            if (std::find(granted.begin(), granted.end(), mq) != granted.end()) {
                continue;
            }
            auto [it, inserted] = table.try_emplace(mq, LockEntry{client_id, now});
            LockEntry& e = it->second;
            const bool expired = now - e.last_update > config_.rebalance_lock_max_live_time;
            if (e.client_id == client_id && !expired) {
                e.last_update = now;
                granted.push_back(mq);
            } else if (expired) {
                e.client_id = client_id;
                e.last_update = now;
                granted.push_back(mq);
            }
        }
        return granted;
    }

    /// RebalanceLockManager.unlockBatch: only entries held by this client are removed.
    void unlock_batch(const std::string& group,
                      const std::string& client_id,
                      const std::vector<MessageQueue>& mqs) {
        const std::lock_guard lock(mutex_);
        take_fault_locked(BrokerRequest::UnlockBatch);
        const auto it = locks_.find(group);
        if (it == locks_.end()) {
            return;
        }
        for (const auto& mq : mqs) {
            if (const auto e = it->second.find(mq);
                e != it->second.end() && e->second.client_id == client_id) {
                it->second.erase(e);
            }
        }
    }

    /// The client holding an unexpired lock on the queue, if any.
    std::optional<std::string> lock_owner(const std::string& group, const MessageQueue& mq) const {
        const std::lock_guard lock(mutex_);
        const auto it = locks_.find(group);
        if (it == locks_.end()) {
            return std::nullopt;
        }
        const auto e = it->second.find(mq);
        if (e == it->second.end() ||
            clock_->steady_millis() - e->second.last_update > config_.rebalance_lock_max_live_time) {
            return std::nullopt;
        }
        return e->second.client_id;
    }

    /// Registers a subscription group (needed only when auto_create_subscription_group is off).
    void create_subscription_group(const std::string& group) {
        check_group(group);
        const std::lock_guard lock(mutex_);
        subscription_groups_.insert(group);
    }

    /// The next `times` requests of kind `request` fail with `code` (0 times clears).
    void inject_failure(BrokerRequest request, int code, int times) {
        const std::lock_guard lock(mutex_);
        if (times <= 0) {
            faults_.erase(request);
        } else {
            faults_[request] = Fault{code, times};
        }
    }

private:
    struct StoredEntry {
        std::shared_ptr<const MessageExt> msg;
        std::int64_t tags_code = 0;
    };

    /// One consume queue: offsets [base, next) are in `entries`.
    struct QueueLog {
        std::int64_t base = 0;
        std::int64_t next = 0;
        std::deque<StoredEntry> entries;
    };

    struct TopicData {
        std::vector<QueueLog> queues;
    };

    struct HeldPull {
        PullArgs args;
        PullCallback callback;
        std::int64_t deadline = 0;
        std::optional<SubscriptionData> filter;
    };

    struct Channel {
        std::string client_id;
        std::uint64_t handle_id = 0;
        std::int64_t last_update = 0;
        ConsumerData data;
    };

    struct GroupInfo {
        std::map<std::string, Channel> channels;
        std::map<std::string, SubscriptionData> subscriptions;
        ConsumeType consume_type = ConsumeType::ConsumePassively;
        MessageModel message_model = MessageModel::Clustering;
        ConsumeFromWhere consume_from_where = ConsumeFromWhere::LastOffset;
    };

    struct LockEntry {
        std::string client_id;
        std::int64_t last_update = 0;
    };

    using OffsetKey = std::tuple<std::string, std::string, std::int32_t>;

    struct Fault {
        int code = response_code::system_error;
        int remaining = 0;
    };

    /// Throws the injected failure of this request kind, if one is pending.
    void take_fault_locked(BrokerRequest request) const {
        const auto it = faults_.find(request);
        if (it == faults_.end()) {
            return;
        }
        const int code = it->second.code;
        if (--it->second.remaining == 0) {
            faults_.erase(it);
        }
        throw BrokerError(code,
                          fmt::format("injected failure of request kind {}", static_cast<int>(request)));
    }

    static OffsetKey offset_key(const std::string& group, const MessageQueue& mq) {
        return {mq.topic, group, mq.queue_id};
    }

    static std::int32_t parse_int(std::string_view text, std::int32_t fallback) {
        if (text.empty()) {
            return fallback;
        }
        std::int64_t v = 0;
        bool negative = false;
        std::size_t i = 0;
        if (text[0] == '-') {
            negative = true;
            i = 1;
        }
        for (; i < text.size(); ++i) {
            if (text[i] < '0' || text[i] > '9') {
                return fallback;
            }
            v = v * 10 + (text[i] - '0');
        }
        return static_cast<std::int32_t>(negative ? -v : v);
    }

    void check_config() const {
        if (config_.broker_name.empty()) {
            throw InvalidArgument("BrokerConfig.broker_name is empty");
        }
        if (config_.default_topic_queue_nums <= 0) {
            throw InvalidArgument("BrokerConfig.default_topic_queue_nums must be positive");
        }
        if (config_.max_message_size <= 0) {
            throw InvalidArgument("BrokerConfig.max_message_size must be positive");
        }
        if (config_.max_transfer_count_on_message_in_memory <= 0) {
            throw InvalidArgument("BrokerConfig.max_transfer_count_on_message_in_memory must be positive");
        }
    }

    void check_own_queue(const MessageQueue& mq) const {
        if (mq.broker_name != config_.broker_name) {
            throw InvalidArgument(fmt::format("{} does not belong to broker {}", mq, config_.broker_name));
        }
    }

    static void check_sendable_topic(std::string_view topic) {
        try {
            check_topic(topic);
        } catch (const InvalidArgument& e) {
            throw BrokerError(response_code::system_error, e.what());
        }
        if (topic == auto_create_topic_key_topic || topic == schedule_topic) {
            throw BrokerError(response_code::no_permission,
                              fmt::format("Sending message to topic[{}] is forbidden.", topic));
        }
    }

    void check_running() const {
        if (stopping_) {
            throw BrokerError(response_code::system_error, "the broker is shut down");
        }
    }

    void require_subscription_group_locked(const std::string& group) {
        if (subscription_groups_.contains(group)) {
            return;
        }
        if (!config_.auto_create_subscription_group) {
            throw BrokerError(response_code::subscription_group_not_exist,
                              fmt::format("subscription group [{}] does not exist", group));
        }
        subscription_groups_.insert(group);
    }

    QueueLog* find_queue_locked(const std::string& topic, std::int32_t queue_id) {
        const auto it = topics_.find(topic);
        if (it == topics_.end() || queue_id < 0 ||
            static_cast<std::size_t>(queue_id) >= it->second.queues.size()) {
            return nullptr;
        }
        return &it->second.queues[static_cast<std::size_t>(queue_id)];
    }

    const QueueLog* find_queue_locked(const std::string& topic, std::int32_t queue_id) const {
        return const_cast<BrokerState*>(this)->find_queue_locked(topic, queue_id);
    }

    QueueLog& ensure_queue_locked(const std::string& topic, std::int32_t queue_id) {
        auto& t = topics_[topic];
        if (t.queues.size() <= static_cast<std::size_t>(queue_id)) {
            t.queues.resize(static_cast<std::size_t>(queue_id) + 1);
        }
        return t.queues[static_cast<std::size_t>(queue_id)];
    }

    /// CommitLog.putMessage: assigns offsets, timestamps and ids; a message with a delay level goes to the
    /// schedule topic (REAL_TOPIC / REAL_QID keep its destination) until due.
    std::shared_ptr<const MessageExt> store_locked(MessageExt m, Tasks& out, bool apply_delay = true) {
        std::int64_t tags_code = tags_code_of(m);
        std::optional<std::int64_t> due;
        if (std::int32_t level = m.delay_time_level(); apply_delay && level > 0) {
            level = std::min(level, static_cast<std::int32_t>(delay_levels_.size()));
            m.set_delay_time_level(level);
            const std::int64_t delay = delay_levels_[static_cast<std::size_t>(level - 1)];
            m.set_property(property::real_topic, m.topic());
            m.set_property(property::real_queue_id, std::to_string(m.queue_id()));
            m.set_topic(std::string(schedule_topic));
            m.set_queue_id(level - 1);
            due = clock_->steady_millis() + delay;
            tags_code = clock_->wall_millis() + delay;  // ScheduleMessageService: the CQ holds the due time
        }
        QueueLog& q = ensure_queue_locked(m.topic(), m.queue_id());
        m.set_queue_offset(q.next);
        m.set_commit_log_offset(commit_log_offset_);
        m.set_store_timestamp(clock_->wall_millis());
        m.set_store_host(std::string(broker_store_host));
        m.set_broker_name(config_.broker_name);
        m.set_body_crc(detail::crc32(m.body()));
        m.set_store_size(stored_message_size(m, encode_properties(m.properties()).size()));
        m.set_offset_msg_id(offset_message_id(commit_log_offset_));
        commit_log_offset_ += m.store_size();
        auto stored = std::make_shared<const MessageExt>(std::move(m));
        q.entries.push_back(StoredEntry{stored, tags_code});
        ++q.next;
        commit_log_.emplace(stored->commit_log_offset(), stored);
        if (due) {
            scheduled_.emplace(*due, stored);
        } else {
            notify_arrival_locked(stored->topic(), stored->queue_id(), tags_code, out);
        }
        return stored;
    }

    /// ScheduleMessageService.messageTimeup: a due delayed message is written to its real topic.
    void deliver_due_locked(Tasks& out) {
        const std::int64_t now = clock_->steady_millis();
        while (!scheduled_.empty() && scheduled_.begin()->first <= now) {
            const auto src = scheduled_.begin()->second;
            scheduled_.erase(scheduled_.begin());
            MessageExt m;
            m.set_properties(src->properties());
            m.set_body(src->body());
            m.set_flag(src->flag());
            m.set_sys_flag(src->sys_flag());
            m.set_born_timestamp(src->born_timestamp());
            m.set_born_host(src->born_host());
            m.set_reconsume_times(src->reconsume_times());
            m.set_topic(std::string(src->property_view(property::real_topic)));
            m.set_queue_id(parse_int(src->property_view(property::real_queue_id), 0));
            // messageTimeup clears DELAY only after encoding the properties string: the stored copy keeps
            // DELAY (and REAL_TOPIC / REAL_QID), it is just not delayed again.
            store_locked(std::move(m), out, false);
        }
    }

    /// DefaultMessageStore.getMessage plus PullMessageProcessor's status mapping (4.9.8, master).
    PullResult get_message_locked(const QueueLog& q,
                                  const PullArgs& a,
                                  const std::optional<SubscriptionData>& sub,
                                  int& code) const {
        PullResult r;
        r.min_offset = q.base;
        r.max_offset = q.next;
        const std::int64_t offset = a.queue_offset;
        if (q.next == 0) {  // NO_MESSAGE_IN_QUEUE
            code = offset == 0 ? response_code::pull_not_found : response_code::pull_offset_moved;
            r.next_begin_offset = 0;
        } else if (offset < q.base) {  // OFFSET_TOO_SMALL
            code = response_code::pull_offset_moved;
            r.next_begin_offset = q.base;
        } else if (offset == q.next) {  // OFFSET_OVERFLOW_ONE
            code = response_code::pull_not_found;
            r.next_begin_offset = offset;
        } else if (offset > q.next) {  // OFFSET_OVERFLOW_BADLY
            code = response_code::pull_offset_moved;
            r.next_begin_offset = q.next;
        } else {
            const std::int64_t file_end = (offset / consume_queue_file_units + 1) * consume_queue_file_units;
            const std::int64_t end = std::min(q.next, file_end);
            const std::int64_t max_scan =
                std::max<std::int64_t>(max_filter_message_bytes,
                                       std::int64_t{a.max_msg_nums} * consume_queue_unit_size) /
                consume_queue_unit_size;
            std::int64_t bytes = 0;
            std::int64_t scanned = 0;
            for (std::int64_t o = offset; o < end && scanned < max_scan; ++o) {
                const StoredEntry& e = q.entries[static_cast<std::size_t>(o - q.base)];
                const std::int64_t size = e.msg->store_size();
                const auto count = static_cast<std::int64_t>(r.msg_found_list.size());
                if (count > 0 && (count >= a.max_msg_nums ||
                                  bytes + size > config_.max_transfer_bytes_on_message_in_memory ||
                                  count > config_.max_transfer_count_on_message_in_memory - 1)) {
                    break;  // isTheBatchFull: this unit is not consumed
                }
                ++scanned;
                if (!matched_by_consume_queue(sub, e.tags_code)) {
                    continue;
                }
                r.msg_found_list.push_back(*e.msg);
                bytes += size;
            }
            r.next_begin_offset = offset + scanned;
            code = r.msg_found_list.empty() ? response_code::pull_retry_immediately : response_code::success;
        }
        switch (code) {
        case response_code::success:
            r.status = PullStatus::Found;
            break;
        case response_code::pull_retry_immediately:
            r.status = PullStatus::NoMatchedMsg;
            break;
        case response_code::pull_not_found:
            r.status = PullStatus::NoNewMsg;
            break;
        default:
            r.status = PullStatus::OffsetIllegal;
            break;
        }
        return r;
    }

    /// PullMessageProcessor.processRequest. Returns nullopt when the request was parked for long polling
    /// (the callback then moved into the hold table).
    std::optional<Outcome<PullResult>>
    process_pull_locked(const PullArgs& a, bool allow_suspend, PullCallback& callback) {
        using O = Outcome<PullResult>;
        if (a.mq.broker_name != config_.broker_name) {
            return O(response_code::system_error,
                     fmt::format("{} does not belong to broker {}", a.mq, config_.broker_name));
        }
        if (a.consumer_group.empty()) {
            return O(response_code::system_error, "pull without consumer group");
        }
        if (!subscription_groups_.contains(a.consumer_group)) {
            if (!config_.auto_create_subscription_group) {
                return O(response_code::subscription_group_not_exist,
                         fmt::format("subscription group [{}] does not exist", a.consumer_group));
            }
            subscription_groups_.insert(a.consumer_group);
        }
        const auto topic = topics_.find(a.mq.topic);
        if (topic == topics_.end()) {
            return O(response_code::topic_not_exist,
                     fmt::format("topic[{}] not exist, apply first please!", a.mq.topic));
        }
        const auto read_queue_nums = static_cast<std::int32_t>(topic->second.queues.size());
        if (a.mq.queue_id < 0 || a.mq.queue_id >= read_queue_nums) {
            return O(
                response_code::system_error,
                fmt::format("queueId[{}] is illegal, topic:[{}] topicConfig.readQueueNums:[{}] consumer:[{}]",
                            a.mq.queue_id,
                            a.mq.topic,
                            read_queue_nums,
                            a.consumer_group));
        }
        std::optional<SubscriptionData> sub;
        if ((a.sys_flag & pull_sys_flag::subscription) != 0) {
            try {
                sub = parse_subscription(a.mq.topic, a.subscription, a.expression_type);
            } catch (const Error&) {
                return O(response_code::subscription_parse_failed,
                         "parse the consumer's subscription failed");
            }
        } else {
            const auto g = groups_.find(a.consumer_group);
            if (g == groups_.end()) {
                return O(response_code::subscription_not_exist,
                         fmt::format("the consumer's group info not exist, group: {}", a.consumer_group));
            }
            const auto s = g->second.subscriptions.find(a.mq.topic);
            if (s == g->second.subscriptions.end()) {
                return O(response_code::subscription_not_exist,
                         fmt::format("the consumer's subscription not exist, group: {} topic: {}",
                                     a.consumer_group,
                                     a.mq.topic));
            }
            if (s->second.sub_version < a.sub_version) {
                return O(response_code::subscription_not_latest,
                         fmt::format("the consumer's subscription not latest, group: {} topic: {}",
                                     a.consumer_group,
                                     a.mq.topic));
            }
            sub = s->second;
        }
        if (sub->expression_type != expression_type_tag) {
            return O(response_code::system_error,
                     fmt::format("The broker does not support consumer to filter message by {}",
                                 sub->expression_type));
        }
        int code = response_code::success;
        PullResult result =
            get_message_locked(topic->second.queues[static_cast<std::size_t>(a.mq.queue_id)], a, sub, code);
        if (allow_suspend && (a.sys_flag & pull_sys_flag::commit_offset) != 0) {
            offsets_[offset_key(a.consumer_group, a.mq)] = a.commit_offset;
        }
        if (code == response_code::pull_not_found && allow_suspend &&
            (a.sys_flag & pull_sys_flag::suspend) != 0) {
            const std::int64_t hold =
                config_.long_polling_enable ? a.suspend_timeout_millis : config_.short_polling_time_mills;
            if (hold > 0) {
                held_[{a.mq.topic, a.mq.queue_id}].push_back(
                    HeldPull{a, std::move(callback), clock_->steady_millis() + hold, std::move(sub)});
                cv_.notify_all();  // the dispatcher's next deadline moved
                return std::nullopt;
            }
        }
        return O(std::move(result));
    }

    [[nodiscard]] std::int64_t hold_check_interval() const noexcept {
        return config_.long_polling_enable ? hold_check_interval_millis : config_.short_polling_time_mills;
    }

    /// PullRequestHoldService.notifyMessageArriving for a new message.
    void notify_arrival_locked(const std::string& topic,
                               std::int32_t queue_id,
                               std::int64_t tags_code,
                               Tasks& out) {
        const auto it = held_.find({topic, queue_id});
        if (it == held_.end()) {
            return;
        }
        const QueueLog* q = find_queue_locked(topic, queue_id);
        const std::int64_t max = q ? q->next : 0;
        std::vector<HeldPull> wake;
        std::erase_if(it->second, [&](HeldPull& h) {
            if (max > h.args.queue_offset && matched_by_consume_queue(h.filter, tags_code)) {
                wake.push_back(std::move(h));
                return true;
            }
            return false;
        });
        if (it->second.empty()) {
            held_.erase(it);
        }
        for (auto& h : wake) {
            answer_held_locked(std::move(h), out);
        }
    }

    void answer_held_locked(HeldPull h, Tasks& out) {
        auto r = process_pull_locked(h.args, false, h.callback);
        out.push_back([cb = std::move(h.callback), res = std::move(*r)]() mutable { cb(std::move(res)); });
    }

    /// Time-driven work: due delayed messages, timed-out held pulls, expired channels.
    void tick_locked(Tasks& out) {
        deliver_due_locked(out);
        const std::int64_t now = clock_->steady_millis();
        // PullRequestHoldService's periodic check (every 5 s, or short_polling_time_mills) wakes held pulls
        // whose queue grew, whatever the new messages' tags.
        const bool hold_check = now >= next_hold_check_;
        if (hold_check) {
            next_hold_check_ = now + hold_check_interval();
        }
        std::vector<HeldPull> timed_out;
        for (auto it = held_.begin(); it != held_.end();) {
            const QueueLog* q = find_queue_locked(it->first.first, it->first.second);
            const std::int64_t max = q ? q->next : 0;
            std::erase_if(it->second, [&](HeldPull& h) {
                if (now >= h.deadline || (hold_check && max > h.args.queue_offset)) {
                    timed_out.push_back(std::move(h));
                    return true;
                }
                return false;
            });
            it = it->second.empty() ? held_.erase(it) : std::next(it);
        }
        for (auto& h : timed_out) {
            answer_held_locked(std::move(h), out);
        }
        for (auto git = groups_.begin(); git != groups_.end();) {
            const auto removed = std::erase_if(git->second.channels, [&](const auto& e) {
                return now - e.second.last_update > config_.channel_expired_timeout;
            });
            if (removed > 0) {
                notify_change_locked(git->first, git->second, out);
            }
            git = git->second.channels.empty() && removed > 0 ? groups_.erase(git) : std::next(git);
        }
    }

    [[nodiscard]] std::optional<std::int64_t> next_deadline_locked() const {
        std::optional<std::int64_t> next;
        auto consider = [&](std::int64_t t) {
            next = next ? std::min(*next, t) : t;
        };
        if (!scheduled_.empty()) {
            consider(scheduled_.begin()->first);
        }
        for (const auto& [key, list] : held_) {
            for (const auto& h : list) {
                consider(h.deadline);
            }
        }
        if (!held_.empty()) {
            consider(next_hold_check_);
        }
        for (const auto& [name, g] : groups_) {
            for (const auto& [id, ch] : g.channels) {
                consider(ch.last_update + config_.channel_expired_timeout + 1);
            }
        }
        return next;
    }

    void notify_change_locked(const std::string& group_name, const GroupInfo& group, Tasks& out) {
        if (!config_.notify_consumer_ids_changed_enable) {
            return;
        }
        for (const auto& [id, ch] : group.channels) {
            const auto h = handles_.find(ch.handle_id);
            if (h == handles_.end()) {
                continue;
            }
            if (auto slot = h->second.lock()) {
                out.push_back([slot, group_name] {
                    NotificationHandler handler;
                    {
                        const std::lock_guard lock(slot->mutex);
                        handler = slot->handler;
                    }
                    if (handler) {
                        handler(ConsumerIdsChanged{group_name});
                    }
                });
            }
        }
    }

    void on_clock_advance() {
        Tasks out;
        {
            const std::lock_guard lock(mutex_);
            if (stopping_) {
                return;
            }
            tick_locked(out);
        }
        dispatch(std::move(out));
    }

    /// Hands callbacks to the dispatcher thread; once it has stopped they run here (never under the lock).
    void dispatch(Tasks tasks) {
        if (tasks.empty()) {
            return;
        }
        {
            const std::lock_guard lock(mutex_);
            if (!stopped_ && started_) {
                for (auto& t : tasks) {
                    tasks_.push_back(std::move(t));
                }
                cv_.notify_all();
                return;
            }
        }
        for (auto& t : tasks) {
            run_task(t);
        }
    }

    static void run_task(Task& t) noexcept {
        try {
            t();
        } catch (...) {  // NOLINT(bugprone-empty-catch): a throwing user callback must not kill the broker
        }
    }

    /// The dispatcher: runs queued callbacks in order and, with a real clock, wakes for the next deadline.
    void run() {
        std::unique_lock lock(mutex_);
        while (true) {
            if (!tasks_.empty()) {
                std::deque<Task> batch;
                batch.swap(tasks_);
                running_task_ = true;
                lock.unlock();
                for (auto& t : batch) {
                    run_task(t);
                }
                batch.clear();
                lock.lock();
                running_task_ = false;
                if (tasks_.empty()) {
                    idle_cv_.notify_all();
                }
                continue;
            }
            if (stopping_) {
                stopped_ = true;  // from here on dispatch() runs callbacks itself
                idle_cv_.notify_all();
                break;
            }
            if (manual_) {
                cv_.wait(lock);
                continue;
            }
            Tasks out;
            tick_locked(out);
            if (!out.empty()) {
                for (auto& t : out) {
                    tasks_.push_back(std::move(t));
                }
                continue;
            }
            if (const auto next = next_deadline_locked()) {
                const std::int64_t wait = std::max<std::int64_t>(*next - clock_->steady_millis(), 1);
                cv_.wait_for(lock, std::chrono::milliseconds(wait));
            } else {
                cv_.wait(lock);
            }
        }
    }

    BrokerConfig config_;
    std::vector<std::int64_t> delay_levels_;
    std::shared_ptr<Clock> clock_;

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::condition_variable idle_cv_;
    std::deque<Task> tasks_;
    bool running_task_ = false;
    bool stopping_ = false;
    bool stopped_ = false;
    bool started_ = false;
    bool manual_ = false;
    std::thread thread_;
    std::thread::id thread_id_;
    std::uint64_t listener_id_ = 0;

    std::map<std::string, TopicData> topics_;
    std::unordered_map<std::int64_t, std::shared_ptr<const MessageExt>> commit_log_;
    std::int64_t commit_log_offset_ = 0;
    std::multimap<std::int64_t, std::shared_ptr<const MessageExt>> scheduled_;
    std::map<OffsetKey, std::int64_t> offsets_;
    std::set<std::string> subscription_groups_;
    std::map<std::string, GroupInfo> groups_;
    std::map<std::string, std::map<MessageQueue, LockEntry>> locks_;
    std::map<std::pair<std::string, std::int32_t>, std::vector<HeldPull>> held_;
    std::map<std::uint64_t, std::weak_ptr<NotificationSlot>> handles_;
    std::uint64_t next_handle_id_ = 0;
    mutable std::map<BrokerRequest, Fault> faults_;
    std::int64_t next_hold_check_ = 0;
};

}  // namespace detail

}  // namespace rmq
