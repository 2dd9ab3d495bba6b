#pragma once

/// @file transport/remoting.hpp
/// rmq::RemotingTransport: rmq::Transport over Apache RocketMQ's own TCP "remoting" protocol, to real
/// NameServers and Brokers (4.9.x and 5.x). See docs/transport/remoting.md.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rmq/clock.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/remoting/acl.hpp>
#include <rmq/remoting/bodies.hpp>
#include <rmq/remoting/command.hpp>
#include <rmq/remoting/compression.hpp>
#include <rmq/remoting/headers.hpp>
#include <rmq/remoting/message_codec.hpp>
#include <rmq/remoting/request_code.hpp>
#include <rmq/topic.hpp>
#include <rmq/unique_id.hpp>

#include <rmq/detail/consumer_log.hpp>
#include <rmq/detail/net/client.hpp>

namespace rmq {

/// ACL credentials every request is signed with (Java's SessionCredentials / AclClientRPCHook):
/// `rmq::AclCredentials{access_key, secret_key}`.
using AclCredentials = remoting::AclCredentials;

/// How a RemotingTransport reaches the cluster. Field names mirror the Java ClientConfig / NettyClientConfig
/// names where one exists.
struct RemotingConfig {
    /// NameServer addresses, `host:port` separated by `;` (Java namesrvAddr). Required.
    std::string namesrv_addr;
    /// Sign every request with these (ACL 1.0 on 4.9.x-5.3.2, authentication on 5.3+).
    std::optional<AclCredentials> credentials{};
    /// TCP connect timeout (NettyClientConfig.connectTimeoutMillis).
    std::int64_t connect_timeout_millis = 3000;
    /// Timeout of every synchronous request (ClientConfig.mqClientApiTimeout).
    std::int64_t mq_client_api_timeout = 3000;
    /// Timeout of a SEND_MESSAGE_V2 request (DefaultMQProducer.sendMsgTimeout).
    std::int64_t send_msg_timeout = 3000;
    /// Read timeout of a long-polling pull (DefaultMQPushConsumer consumerTimeoutMillisWhenSuspend); always
    /// kept at least 5 s above the pull's suspend time.
    std::int64_t consumer_timeout_millis_when_suspend = 30000;
    /// Route refresh and transport-level heartbeat period (ClientConfig.pollNameServerInterval).
    std::int64_t poll_name_server_interval = 30000;
    /// Bodies of at least this many bytes are zlib-compressed by send() (compressMsgBodyOverHowmuch).
    std::int32_t compress_msg_body_over_howmuch = 4096;
    /// zlib level (rocketmq.message.compressLevel).
    int compress_level = 5;
    /// SYSTEM_BUSY answers to synchronous requests are retried this many times, with doubling back-off from
    /// 50 ms (capped at 1 s); pulls report them to the consumer, which backs off itself.
    int system_busy_retry_times = 3;
    /// Header format of the requests rmq sends (responses are decoded in either format).
    remoting::SerializeType serialize_type = remoting::SerializeType::Json;
    /// Back-off after a failed connect: requests to that address fail at once until it has passed (doubles
    /// up to the maximum while connects keep failing).
    std::int64_t reconnect_backoff_min_millis = 100;
    std::int64_t reconnect_backoff_max_millis = 5000;
};

namespace detail {

/// The shared state of every copy of one RemotingTransport.
class RemotingTransportState {
public:
    explicit RemotingTransportState(RemotingConfig config)
        : config_(std::move(config))
        , namesrvs_(split_namesrv(config_.namesrv_addr))
        , client_(options(config_), config_.credentials)
        , start_millis_(system_clock()->wall_millis()) {
        if (config_.mq_client_api_timeout <= 0 || config_.send_msg_timeout <= 0 ||
            config_.poll_name_server_interval <= 0 || config_.connect_timeout_millis <= 0) {
            throw InvalidArgument("RemotingConfig: timeouts and intervals must be positive");
        }
        client_.set_request_handler(
            [this](const std::string& addr, const remoting::Command& req) { return on_request(addr, req); });
        client_.set_connect_hook([this](const std::string& addr) { return on_connect(addr); });
        schedule_refresh();
    }

    RemotingTransportState(const RemotingTransportState&) = delete;
    RemotingTransportState& operator=(const RemotingTransportState&) = delete;

    ~RemotingTransportState() {
        stopping_.store(true);
        client_.shutdown();
    }

    // ------------------------------------------------------------------ routes

    TopicRoute topic_route(const std::string& topic) {
        {
            const std::lock_guard lock(mutex_);
            if (const auto it = routes_.find(topic); it != routes_.end()) {
                return remoting::to_topic_route(topic, it->second);
            }
        }
        return remoting::to_topic_route(topic, fetch_route(topic));
    }

    remoting::TopicRouteData fetch_route(const std::string& topic) {
        remoting::GetRouteInfoRequestHeader h;
        h.topic = topic;
        h.accept_standard_json_only = true;
        const auto req = remoting::make_request(remoting::request_code::get_routeinfo_by_topic, h);
        std::exception_ptr last;
        const std::size_t n = namesrvs_.size();
        const std::size_t first = namesrv_index_.fetch_add(1) % n;
        for (std::size_t i = 0; i < n; ++i) {
            const std::string& addr = namesrvs_[(first + i) % n];
            remoting::Command resp;
            try {
                resp = call(addr, req, config_.mq_client_api_timeout);
            } catch (const std::exception&) {
                last = std::current_exception();
                continue;  // next NameServer
            }
            if (resp.code != response_code::success) {
                throw BrokerError(resp.code,
                                  fmt::format("route of {}: {}", topic, resp.remark.value_or("no route")));
            }
            auto data = remoting::decode_topic_route_data(resp.body);
            store_route(topic, data);
            return data;
        }
        std::rethrow_exception(last);
    }

    // ------------------------------------------------------------------ membership

    void heartbeat(const HeartbeatData& hb) {
        std::set<std::string> topics;
        for (const auto& cd : hb.consumer_data_set) {
            for (const auto& sd : cd.subscription_data_set) {
                topics.insert(sd.topic);
            }
        }
        for (const auto& t : topics) {
            bool known = false;
            {
                const std::lock_guard lock(mutex_);
                known = routes_.count(t) != 0;
            }
            if (!known) {
                try {
                    fetch_route(t);
                } catch (const std::exception&) {
                    // %RETRY% topics exist only after the first heartbeat; others may be created later
                }
            }
        }
        remember_heartbeat(hb);
        const bool consumer = !hb.consumer_data_set.empty();
        std::vector<std::string> targets = broker_addresses(!consumer);
        remoting::Command req;
        req.code = remoting::request_code::heart_beat;
        req.body = remoting::encode_heartbeat_data(hb);
        std::vector<std::pair<std::string, remoting::Command>> calls;
        for (auto& a : targets) {
            calls.emplace_back(std::move(a), req);
        }
        // like Java's sendHeartbeatToAllBroker: a broker that is down must not fail the others (a producer's
        // start, a consumer's heartbeat round); only when no broker took it is it an error
        const auto results = call_all(calls, config_.mq_client_api_timeout);
        std::size_t failed = 0;
        for (const auto& [addr, result] : results) {
            try {
                throw_first_failure({{addr, result}}, "heartbeat");
            } catch (const std::exception& e) {
                if (++failed == results.size()) {
                    throw;
                }
                log_line("{}", e.what());
            }
        }
    }

    void unregister_client(const std::string& client_id,
                           const std::string& producer_group,
                           const std::string& consumer_group) {
        forget_heartbeat(client_id, producer_group, consumer_group);
        remoting::UnregisterClientRequestHeader h;
        h.client_id = client_id;
        if (!producer_group.empty()) {
            h.producer_group = producer_group;
        }
        if (!consumer_group.empty()) {
            h.consumer_group = consumer_group;
        }
        std::vector<std::pair<std::string, remoting::Command>> calls;
        for (auto& a : broker_addresses(false)) {
            calls.emplace_back(std::move(a),
                               remoting::make_request(remoting::request_code::unregister_client, h));
        }
        for (const auto& [addr, result] : call_all(calls, config_.mq_client_api_timeout)) {
            if (const auto* e = std::get_if<std::exception_ptr>(&result)) {
                try {
                    std::rethrow_exception(*e);
                } catch (const std::exception& ex) {
                    log_line("unregister of {} at {} failed: {}", client_id, addr, ex.what());
                }
            }
        }
    }

    std::vector<std::string> consumer_id_list(const std::string& topic, const std::string& group) {
        (void)topic_route(topic);
        std::string addr;
        {
            const std::lock_guard lock(mutex_);
            const auto route = routes_.find(topic);  // gone only if invalidated meanwhile
            for (const auto& bd :
                 route == routes_.end() ? std::vector<remoting::BrokerData>{} : route->second.broker_datas) {
                if (auto a = pick_address(bd.broker_name, 0)) {
                    addr = *a;
                    break;
                }
            }
        }
        if (addr.empty()) {
            throw Error(fmt::format("no broker address for topic {}", topic));
        }
        remoting::ConsumerGroupRequestHeader h;
        h.consumer_group = group;
        const auto resp = call(addr,
                               remoting::make_request(remoting::request_code::get_consumer_list_by_group, h),
                               config_.mq_client_api_timeout);
        check_success(resp, fmt::format("consumer list of {} at {}", group, addr));
        return remoting::decode_consumer_list(resp.body);
    }

    void set_notification_handler(NotificationHandler handler) {
        const std::lock_guard lock(mutex_);
        handler_ = std::move(handler);
    }

    // ------------------------------------------------------------------ pull

    void pull(const PullArgs& args, PullCallback callback) {
        std::int64_t broker_id = 0;
        {
            const std::lock_guard lock(mutex_);
            if (const auto it = suggested_.find(args.mq); it != suggested_.end()) {
                broker_id = it->second;
            }
        }
        const auto [addr, id] = pull_address(args.mq.broker_name, broker_id);
        auto header = remoting::PullMessageRequestHeader::from(args);
        if (id != 0) {
            header.sys_flag &= ~pull_sys_flag::commit_offset;  // a commit on a slave is useless
        }
        if (header.subscription && header.subscription->empty()) {
            header.subscription.reset();
        }
        std::int64_t timeout = config_.mq_client_api_timeout;
        if ((args.sys_flag & pull_sys_flag::suspend) != 0) {
            timeout =
                std::max(config_.consumer_timeout_millis_when_suspend, args.suspend_timeout_millis + 5000);
        }
        auto shared_cb = std::make_shared<PullCallback>(std::move(callback));
        client_.invoke_async(
            addr,
            remoting::make_request(remoting::request_code::pull_message, header),
            timeout,
            [this, mq = args.mq, shared_cb](std::optional<remoting::Command> resp, std::exception_ptr error) {
                if (error) {
                    std::string what = "pull failed";
                    try {
                        std::rethrow_exception(error);
                    } catch (const std::exception& e) {
                        what = e.what();
                    }
                    (*shared_cb)(Outcome<PullResult>(response_code::system_error, what));
                    return;
                }
                (*shared_cb)(to_pull_result(mq, *resp));
            });
    }

    // ------------------------------------------------------------------ offsets

    std::optional<std::int64_t> query_consumer_offset(const std::string& group, const MessageQueue& mq) {
        remoting::QueryConsumerOffsetRequestHeader h;
        h.consumer_group = group;
        h.topic = mq.topic;
        h.queue_id = mq.queue_id;
        h.bname = mq.broker_name;
        const auto resp = call(master_address(mq.broker_name),
                               remoting::make_request(remoting::request_code::query_consumer_offset, h),
                               config_.mq_client_api_timeout);
        if (resp.code == response_code::query_not_found) {
            return std::nullopt;
        }
        check_success(resp, fmt::format("query consumer offset of {} for {}", mq, group));
        return remoting::header_of<remoting::OffsetResponseHeader>(resp).offset.value_or(0);
    }

    void update_consumer_offset(const std::string& group, const MessageQueue& mq, std::int64_t offset) {
        remoting::UpdateConsumerOffsetRequestHeader h;
        h.consumer_group = group;
        h.topic = mq.topic;
        h.queue_id = mq.queue_id;
        h.commit_offset = offset;
        h.bname = mq.broker_name;
        const auto resp = call(master_address(mq.broker_name),
                               remoting::make_request(remoting::request_code::update_consumer_offset, h),
                               config_.mq_client_api_timeout);
        check_success(resp, fmt::format("update consumer offset of {} for {}", mq, group));
    }

    std::int64_t min_offset(const MessageQueue& mq) {
        remoting::GetMinOffsetRequestHeader h;
        h.topic = mq.topic;
        h.queue_id = mq.queue_id;
        h.bname = mq.broker_name;
        return offset_call(
            mq, remoting::make_request(remoting::request_code::get_min_offset, h), "min offset");
    }

    std::int64_t max_offset(const MessageQueue& mq) {
        remoting::GetMaxOffsetRequestHeader h;
        h.topic = mq.topic;
        h.queue_id = mq.queue_id;
        h.bname = mq.broker_name;
        return offset_call(
            mq, remoting::make_request(remoting::request_code::get_max_offset, h), "max offset");
    }

    std::int64_t search_offset(const MessageQueue& mq, std::int64_t timestamp) {
        remoting::SearchOffsetRequestHeader h;
        h.topic = mq.topic;
        h.queue_id = mq.queue_id;
        h.timestamp = timestamp;
        h.bname = mq.broker_name;
        return offset_call(mq,
                           remoting::make_request(remoting::request_code::search_offset_by_timestamp, h),
                           "search offset");
    }

    // ------------------------------------------------------------------ orderly locks

    std::vector<MessageQueue>
    lock_batch(const std::string& group, const std::string& client_id, const std::vector<MessageQueue>& mqs) {
        const auto calls = batch_calls(remoting::request_code::lock_batch_mq, group, client_id, mqs);
        std::vector<MessageQueue> locked;
        std::exception_ptr first_error;
        std::size_t failures = 0;
        for (const auto& [addr, result] : call_all(calls, config_.mq_client_api_timeout)) {
            try {
                if (const auto* e = std::get_if<std::exception_ptr>(&result)) {
                    std::rethrow_exception(*e);
                }
                const auto& resp = std::get<remoting::Command>(result);
                check_success(resp, fmt::format("lock batch at {}", addr));
                for (auto& mq : remoting::decode_lock_batch_response(resp.body)) {
                    locked.push_back(std::move(mq));
                }
            } catch (const std::exception& e) {
                ++failures;
                if (!first_error) {
                    first_error = std::current_exception();
                }
                log_line("group [{}]: lock batch at {} failed: {}", group, addr, e.what());
            }
        }
        if (failures != 0 && failures == calls.size()) {
            std::rethrow_exception(first_error);
        }
        return locked;
    }

    void unlock_batch(const std::string& group,
                      const std::string& client_id,
                      const std::vector<MessageQueue>& mqs) {
        const auto calls = batch_calls(remoting::request_code::unlock_batch_mq, group, client_id, mqs);
        throw_first_failure(call_all(calls, config_.mq_client_api_timeout), "unlock batch");
    }

    // ------------------------------------------------------------------ send

    SendResult send(const Message& msg, const MessageQueue& mq) {
        auto props = msg.properties();
        if (props.find(std::string(property::uniq_client_message_id_keyidx)) == props.end()) {
            props[std::string(property::uniq_client_message_id_keyidx)] = ids_.next();
        }
        remoting::SendMessageRequestHeader h;
        h.producer_group = producer_group_for(msg);
        h.topic = mq.topic;
        h.queue_id = mq.queue_id;
        h.born_timestamp = system_clock()->wall_millis();
        h.flag = msg.flag();
        h.reconsume_times = 0;
        h.unit_mode = false;
        h.batch = false;
        h.bname = mq.broker_name;
        if (is_retry_topic(mq.topic)) {
            if (auto it = props.find(std::string(property::reconsume_time)); it != props.end()) {
                h.reconsume_times = parse_int(it->second);
                props.erase(it);
            }
            if (auto it = props.find(std::string(property::max_reconsume_times)); it != props.end()) {
                h.max_reconsume_times = parse_int(it->second);
                props.erase(it);
            }
        }
        std::int32_t sys_flag = 0;
        std::string body = msg.body();
        if (config_.compress_msg_body_over_howmuch > 0 &&
            body.size() >= static_cast<std::size_t>(config_.compress_msg_body_over_howmuch)) {
            body = remoting::compress(body, remoting::CompressionType::Zlib, config_.compress_level);
            sys_flag |= remoting::message_sys_flag::compressed |
                        remoting::message_sys_flag::compression_bits(remoting::CompressionType::Zlib);
        }
        if (props.count(std::string(property::transaction_prepared)) != 0 &&
            props[std::string(property::transaction_prepared)] == "true") {
            sys_flag |= remoting::message_sys_flag::transaction_prepared_type;
        }
        h.sys_flag = sys_flag;
        h.properties = encode_properties(props);
        remoting::SendMessageRequestHeaderV2 v2{h};
        const auto req = remoting::make_request(remoting::request_code::send_message_v2, v2, std::move(body));
        const std::string addr = master_address(mq.broker_name);
        const auto resp = call(addr, req, config_.send_msg_timeout);
        SendResult r;
        switch (resp.code) {
        case response_code::success:
            r.status = SendStatus::SendOk;
            break;
        case response_code::flush_disk_timeout:
            r.status = SendStatus::FlushDiskTimeout;
            break;
        case response_code::flush_slave_timeout:
            r.status = SendStatus::FlushSlaveTimeout;
            break;
        case response_code::slave_not_available:
            r.status = SendStatus::SlaveNotAvailable;
            break;
        default:
            throw BrokerError(
                resp.code,
                fmt::format("send to {} at {}: {}", mq, addr, resp.remark.value_or("(no remark)")));
        }
        const auto rh = remoting::header_of<remoting::SendMessageResponseHeader>(resp);
        r.msg_id = props[std::string(property::uniq_client_message_id_keyidx)];
        r.offset_msg_id = rh.msg_id;
        r.message_queue = MessageQueue{mq.topic, mq.broker_name, rh.queue_id};
        r.queue_offset = rh.queue_offset;
        return r;
    }

    void send_back(const SendBackArgs& args) {
        const std::string& broker = args.message.broker_name();
        std::string addr;
        if (!broker.empty()) {
            addr = master_address(broker);
        } else {
            addr = args.message.store_host();
        }
        const auto h = remoting::ConsumerSendMsgBackRequestHeader::from(
            args, broker.empty() ? std::nullopt : std::optional<std::string>(broker));
        const auto resp = call(addr,
                               remoting::make_request(remoting::request_code::consumer_send_msg_back, h),
                               config_.mq_client_api_timeout);
        check_success(resp, fmt::format("send back of {} to {}", args.message.msg_id(), addr));
    }

    // ------------------------------------------------------------------ misc

    /// The address a pull of `broker_name` goes to, for tests and tools.
    std::string master_address(const std::string& broker_name) {
        {
            const std::lock_guard lock(mutex_);
            if (auto a = pick_address(broker_name, 0, true)) {
                return *a;
            }
        }
        throw Error(
            fmt::format("The broker[{}] not exist (no master address in any known route)", broker_name));
    }

    /// Forgets the cached route of `topic` (the next topic_route asks the NameServer).
    void invalidate_route(const std::string& topic) {
        const std::lock_guard lock(mutex_);
        routes_.erase(topic);
    }

    /// Refreshes every cached route now (asynchronously).
    void refresh_routes() { refresh_async(); }

    [[nodiscard]] const RemotingConfig& config() const noexcept { return config_; }

    RemotingClient& client() noexcept { return client_; }

private:
    using CallResult = std::variant<remoting::Command, std::exception_ptr>;

    static ConnectionOptions options(const RemotingConfig& c) {
        ConnectionOptions o;
        o.connect_timeout_millis = c.connect_timeout_millis;
        o.reconnect_backoff_min_millis = c.reconnect_backoff_min_millis;
        o.reconnect_backoff_max_millis = c.reconnect_backoff_max_millis;
        o.serialize_type = c.serialize_type;
        return o;
    }

    static std::vector<std::string> split_namesrv(std::string_view text) {
        std::vector<std::string> out;
        while (!text.empty()) {
            const std::size_t end = text.find(';');
            std::string_view item = text.substr(0, end);
            while (!item.empty() && item.front() == ' ') {
                item.remove_prefix(1);
            }
            while (!item.empty() && item.back() == ' ') {
                item.remove_suffix(1);
            }
            if (!item.empty()) {
                if (item.rfind(':') == std::string_view::npos) {
                    throw InvalidArgument(fmt::format("namesrv_addr: '{}' is not host:port", item));
                }
                out.emplace_back(item);
            }
            if (end == std::string_view::npos) {
                break;
            }
            text.remove_prefix(end + 1);
        }
        if (out.empty()) {
            throw InvalidArgument("RemotingConfig.namesrv_addr is empty (want \"host:port;host:port\")");
        }
        return out;
    }

    static std::int32_t parse_int(const std::string& s) {
        try {
            return static_cast<std::int32_t>(std::stol(s));
        } catch (const std::exception&) {
            return 0;
        }
    }

    /// The send header's producer group: the message's PGROUP, else the group a producer heartbeat
    /// registered (the Producer does not pass its group with each message), else Java's default name.
    std::string producer_group_for(const Message& msg) {
        if (auto g = msg.property(property::producer_group)) {
            return *g;
        }
        const std::lock_guard lock(mutex_);
        for (const auto& [id, hb] : heartbeats_) {
            if (!hb.producer_groups.empty()) {
                return hb.producer_groups.front();
            }
        }
        return "DEFAULT_PRODUCER";
    }

    static void check_success(const remoting::Command& resp, const std::string& what) {
        if (resp.code != response_code::success) {
            throw BrokerError(resp.code, fmt::format("{}: {}", what, resp.remark.value_or("(no remark)")));
        }
    }

    std::int64_t offset_call(const MessageQueue& mq, const remoting::Command& req, std::string_view what) {
        const auto resp = call(master_address(mq.broker_name), req, config_.mq_client_api_timeout);
        check_success(resp, fmt::format("{} of {}", what, mq));
        return remoting::header_of<remoting::OffsetResponseHeader>(resp).offset.value_or(0);
    }

    /// A synchronous request; SYSTEM_BUSY answers are retried with back-off.
    remoting::Command call(const std::string& addr, const remoting::Command& req, std::int64_t timeout) {
        std::int64_t backoff = 50;
        for (int attempt = 0;; ++attempt) {
            auto resp = client_.invoke_sync(addr, req, timeout);
            if (resp.code != response_code::system_busy || attempt >= config_.system_busy_retry_times) {
                return resp;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(backoff));
            backoff = std::min<std::int64_t>(backoff * 2, 1000);
        }
    }

    /// Sends every request at once and waits for all.
    std::vector<std::pair<std::string, CallResult>>
    call_all(const std::vector<std::pair<std::string, remoting::Command>>& calls, std::int64_t timeout) {
        if (client_.on_io_thread()) {
            throw IllegalState("blocking remoting call on the remoting io thread");
        }
        std::vector<std::future<CallResult>> futures;
        for (const auto& [addr, cmd] : calls) {
            auto p = std::make_shared<std::promise<CallResult>>();
            futures.push_back(p->get_future());
            try {
                client_.invoke_async(
                    addr, cmd, timeout, [p](std::optional<remoting::Command> r, std::exception_ptr e) {
                        if (e) {
                            // A fresh exception per waiter: the connection shares one exception_ptr among all
                            // its pending requests, and releasing it on two threads races in libstdc++'s
                            // uninstrumented refcount (ThreadSanitizer).
                            p->set_value(CallResult(fresh_exception(e)));
                        } else {
                            p->set_value(CallResult(std::move(*r)));
                        }
                    });
            } catch (...) {
                p->set_value(CallResult(std::current_exception()));
            }
        }
        std::vector<std::pair<std::string, CallResult>> out;
        for (std::size_t i = 0; i < calls.size(); ++i) {
            out.emplace_back(calls[i].first, futures[i].get());
        }
        return out;
    }

    static std::exception_ptr fresh_exception(const std::exception_ptr& e) {
        try {
            std::rethrow_exception(e);
        } catch (const Timeout& ex) {
            return std::make_exception_ptr(Timeout(ex.what()));
        } catch (const std::exception& ex) {
            return std::make_exception_ptr(Error(ex.what()));
        } catch (...) {
            return std::make_exception_ptr(Error("remoting request failed with an unknown error"));
        }
    }

    static void throw_first_failure(const std::vector<std::pair<std::string, CallResult>>& results,
                                    std::string_view what) {
        for (const auto& [addr, result] : results) {
            if (const auto* e = std::get_if<std::exception_ptr>(&result)) {
                try {
                    std::rethrow_exception(*e);
                } catch (const std::exception& ex) {
                    throw Error(fmt::format("{} at {} failed: {}", what, addr, ex.what()));
                }
            }
            check_success(std::get<remoting::Command>(result), fmt::format("{} at {}", what, addr));
        }
    }

    std::vector<std::pair<std::string, remoting::Command>> batch_calls(std::int32_t code,
                                                                       const std::string& group,
                                                                       const std::string& client_id,
                                                                       const std::vector<MessageQueue>& mqs) {
        std::map<std::string, std::vector<MessageQueue>> by_broker;
        for (const auto& mq : mqs) {
            by_broker[mq.broker_name].push_back(mq);
        }
        std::vector<std::pair<std::string, remoting::Command>> calls;
        for (auto& [broker, list] : by_broker) {
            remoting::LockBatchRequestBody body;
            body.consumer_group = group;
            body.client_id = client_id;
            body.only_this_broker = false;
            body.mq_set = std::move(list);
            remoting::BatchMqRequestHeader h;
            h.bname = broker;
            calls.emplace_back(master_address(broker),
                               remoting::make_request(code, h, remoting::encode_lock_batch_request(body)));
        }
        return calls;
    }

    Outcome<PullResult> to_pull_result(const MessageQueue& mq, const remoting::Command& resp) {
        PullResult r;
        switch (resp.code) {
        case response_code::success:
            r.status = PullStatus::Found;
            break;
        case response_code::pull_not_found:
            r.status = PullStatus::NoNewMsg;
            break;
        case response_code::pull_retry_immediately:
            r.status = PullStatus::NoMatchedMsg;
            break;
        case response_code::pull_offset_moved:
            r.status = PullStatus::OffsetIllegal;
            break;
        default:
            return Outcome<PullResult>(resp.code, resp.remark.value_or(""));
        }
        try {
            const auto h = remoting::header_of<remoting::PullMessageResponseHeader>(resp);
            r.next_begin_offset = h.next_begin_offset;
            r.min_offset = h.min_offset;
            r.max_offset = h.max_offset;
            r.suggest_which_broker_id = h.suggest_which_broker_id;
            {
                const std::lock_guard lock(mutex_);
                suggested_[mq] = h.suggest_which_broker_id;
            }
            if (r.status == PullStatus::Found) {
                remoting::MessageDecodeReport report;
                r.msg_found_list = remoting::decode_messages(resp.body_bytes(), &report);
                if (report.damaged_records != 0) {
                    log_line("pull of {}: {} damaged record(s) dropped: {}",
                             mq,
                             report.damaged_records,
                             report.error);
                }
                if (h.offset_delta) {
                    for (auto& m : r.msg_found_list) {
                        m.set_queue_offset(m.queue_offset() + *h.offset_delta);
                    }
                }
            }
        } catch (const std::exception& e) {
            return Outcome<PullResult>(response_code::system_error,
                                       fmt::format("pull of {}: undecodable response: {}", mq, e.what()));
        }
        return r;
    }

    std::pair<std::string, std::int64_t> pull_address(const std::string& broker_name, std::int64_t id) {
        const std::lock_guard lock(mutex_);
        const auto it = brokers_.find(broker_name);
        if (it == brokers_.end() || it->second.empty()) {
            throw Error(fmt::format("The broker[{}] not exist (no address in any known route)", broker_name));
        }
        if (auto a = it->second.find(id); a != it->second.end()) {
            return {a->second, id};
        }
        if (auto a = it->second.find(0); a != it->second.end()) {
            return {a->second, 0};
        }
        return {it->second.begin()->second, it->second.begin()->first};
    }

    /// Caller holds mutex_.
    std::optional<std::string>
    pick_address(const std::string& broker_name, std::int64_t id, bool exact = false) {
        const auto it = brokers_.find(broker_name);
        if (it == brokers_.end() || it->second.empty()) {
            return std::nullopt;
        }
        if (auto a = it->second.find(id); a != it->second.end()) {
            return a->second;
        }
        if (exact) {
            return std::nullopt;
        }
        return it->second.begin()->second;
    }

    /// Addresses of every known broker: masters only, or masters and slaves.
    std::vector<std::string> broker_addresses(bool masters_only) {
        const std::lock_guard lock(mutex_);
        std::vector<std::string> out;
        for (const auto& [name, ids] : brokers_) {
            for (const auto& [id, addr] : ids) {
                if (!masters_only || id == 0) {
                    out.push_back(addr);
                }
            }
        }
        return out;
    }

    /// Caches a route and merges its broker addresses; heartbeats go to brokers seen for the first time.
    void store_route(const std::string& topic, const remoting::TopicRouteData& data) {
        std::vector<std::string> fresh;
        {
            const std::lock_guard lock(mutex_);
            routes_[topic] = data;
            for (const auto& bd : data.broker_datas) {
                auto& ids = brokers_[bd.broker_name];
                std::map<std::int64_t, std::string> now;
                for (const auto& [id, addr] : bd.broker_addrs) {
                    now[id] = addr;
                    bool seen = false;
                    for (const auto& [i2, a2] : ids) {
                        seen = seen || a2 == addr;
                    }
                    if (!seen && !heartbeats_.empty()) {
                        fresh.push_back(addr);
                    }
                }
                if (!now.empty()) {
                    ids = std::move(now);
                }
            }
        }
        for (const auto& addr : fresh) {
            send_heartbeats_async(addr);
        }
    }

    void remember_heartbeat(const HeartbeatData& hb) {
        const std::lock_guard lock(mutex_);
        auto& stored = heartbeats_[hb.client_id];
        stored.client_id = hb.client_id;
        for (const auto& cd : hb.consumer_data_set) {
            auto it = std::find_if(stored.consumer_data_set.begin(),
                                   stored.consumer_data_set.end(),
                                   [&](const ConsumerData& c) { return c.group_name == cd.group_name; });
            if (it == stored.consumer_data_set.end()) {
                stored.consumer_data_set.push_back(cd);
            } else {
                *it = cd;
            }
        }
        for (const auto& g : hb.producer_groups) {
            if (std::find(stored.producer_groups.begin(), stored.producer_groups.end(), g) ==
                stored.producer_groups.end()) {
                stored.producer_groups.push_back(g);
            }
        }
    }

    void forget_heartbeat(const std::string& client_id,
                          const std::string& producer_group,
                          const std::string& consumer_group) {
        const std::lock_guard lock(mutex_);
        const auto it = heartbeats_.find(client_id);
        if (it == heartbeats_.end()) {
            return;
        }
        auto& hb = it->second;
        std::erase_if(hb.consumer_data_set,
                      [&](const ConsumerData& c) { return c.group_name == consumer_group; });
        std::erase(hb.producer_groups, producer_group);
        if (hb.consumer_data_set.empty() && hb.producer_groups.empty()) {
            heartbeats_.erase(it);
        }
    }

    std::vector<remoting::Command> heartbeat_commands() {
        std::vector<remoting::Command> out;
        const std::lock_guard lock(mutex_);
        for (const auto& [id, hb] : heartbeats_) {
            remoting::Command c;
            c.code = remoting::request_code::heart_beat;
            c.body = remoting::encode_heartbeat_data(hb);
            out.push_back(std::move(c));
        }
        return out;
    }

    bool is_broker_address(const std::string& addr) {
        const std::lock_guard lock(mutex_);
        for (const auto& [name, ids] : brokers_) {
            for (const auto& [id, a] : ids) {
                if (a == addr) {
                    return true;
                }
            }
        }
        return false;
    }

    /// Connect hook (io thread): a broker that sees a new connection must hear the heartbeats again before
    /// anything else (it forgot the client when the old channel closed).
    std::vector<remoting::Command> on_connect(const std::string& addr) {
        if (!is_broker_address(addr)) {
            return {};
        }
        return heartbeat_commands();
    }

    void send_heartbeats_async(const std::string& addr) {
        for (auto& c : heartbeat_commands()) {
            try {
                client_.invoke_async(addr, std::move(c), config_.mq_client_api_timeout, [](auto, auto) {});
            } catch (const std::exception& e) {
                log_line("heartbeat to {} not sent: {}", addr, e.what());
            }
        }
    }

    /// Broker-initiated requests (io thread).
    std::optional<remoting::Command> on_request(const std::string& addr, const remoting::Command& req) {
        namespace rc = remoting::request_code;
        if (req.code == rc::notify_consumer_ids_changed) {
            NotificationHandler h;
            {
                const std::lock_guard lock(mutex_);
                h = handler_;
            }
            const std::string group(req.field("consumerGroup").value_or(""));
            if (h && !group.empty()) {
                try {
                    h(ConsumerIdsChanged{group});
                } catch (const std::exception& e) {
                    log_line("notification handler for {} threw: {}", group, e.what());
                }
            }
            return remoting::Command{};
        }
        if (req.code == rc::get_consumer_running_info) {
            const auto h = remoting::header_of<remoting::GetConsumerRunningInfoRequestHeader>(req);
            remoting::Command resp;
            const auto body = running_info(h.consumer_group);
            if (!body) {
                resp.code = response_code::system_error;
                resp.remark =
                    fmt::format("The Consumer Group <{}> not exist in this consumer", h.consumer_group);
            } else {
                resp.body = *body;
            }
            return resp;
        }
        (void)addr;
        return std::nullopt;  // answered with REQUEST_CODE_NOT_SUPPORTED by the connection (two-way only)
    }

    /// ConsumerRunningInfo JSON with what the transport knows: subscriptions and client properties.
    std::optional<std::string> running_info(const std::string& group) {
        const std::lock_guard lock(mutex_);
        for (const auto& [id, hb] : heartbeats_) {
            for (const auto& cd : hb.consumer_data_set) {
                if (cd.group_name != group) {
                    continue;
                }
                nlohmann::ordered_json j;
                j["jstack"] = "";
                j["mqTable"] = nlohmann::ordered_json::object();
                j["properties"] = {
                    {"PROP_CLIENT_VERSION", "V4_9_8"},
                    {"PROP_CONSUMER_START_TIMESTAMP", std::to_string(start_millis_)},
                    {"PROP_CONSUME_TYPE", "CONSUME_PASSIVELY"},
                    {"PROP_NAMESERVER_ADDR", config_.namesrv_addr},
                };
                j["statusTable"] = nlohmann::ordered_json::object();
                auto subs = nlohmann::ordered_json::array();
                for (const auto& sd : cd.subscription_data_set) {
                    subs.push_back({{"classFilterMode", sd.class_filter_mode},
                                    {"codeSet", sd.code_set},
                                    {"expressionType", sd.expression_type},
                                    {"subString", sd.sub_string},
                                    {"subVersion", sd.sub_version},
                                    {"tagsSet", sd.tags_set},
                                    {"topic", sd.topic}});
                }
                j["subscriptionSet"] = std::move(subs);
                return j.dump();
            }
        }
        return std::nullopt;
    }

    void schedule_refresh() {
        if (stopping_.load()) {
            return;
        }
        client_.run_after(config_.poll_name_server_interval, [this] {
            if (stopping_.load()) {
                return;
            }
            try {
                refresh_async();
                for (const auto& addr : broker_addresses(false)) {
                    send_heartbeats_async(addr);
                }
            } catch (const std::exception& e) {
                log_line("route refresh failed: {}", e.what());
            }
            schedule_refresh();
        });
    }

    /// Asks a NameServer for every cached route; answers update the cache (a missing route keeps the old
    /// one).
    void refresh_async() {
        std::vector<std::string> topics;
        {
            const std::lock_guard lock(mutex_);
            for (const auto& [t, r] : routes_) {
                topics.push_back(t);
            }
        }
        for (const auto& topic : topics) {
            remoting::GetRouteInfoRequestHeader h;
            h.topic = topic;
            h.accept_standard_json_only = true;
            const std::string& addr = namesrvs_[namesrv_index_.fetch_add(1) % namesrvs_.size()];
            client_.invoke_async(addr,
                                 remoting::make_request(remoting::request_code::get_routeinfo_by_topic, h),
                                 config_.mq_client_api_timeout,
                                 [this, topic](std::optional<remoting::Command> resp, std::exception_ptr e) {
                                     if (e || !resp || resp->code != response_code::success) {
                                         return;
                                     }
                                     try {
                                         store_route(topic, remoting::decode_topic_route_data(resp->body));
                                     } catch (const std::exception& ex) {
                                         log_line("route of {}: {}", topic, ex.what());
                                     }
                                 });
        }
    }

    const RemotingConfig config_;
    const std::vector<std::string> namesrvs_;
    std::atomic<std::size_t> namesrv_index_{0};
    RemotingClient client_;
    const std::int64_t start_millis_;
    UniqueIdGenerator ids_;

    std::atomic<bool> stopping_{false};
    std::mutex mutex_;
    std::map<std::string, remoting::TopicRouteData> routes_;
    std::map<std::string, std::map<std::int64_t, std::string>> brokers_;
    std::map<std::string, HeartbeatData> heartbeats_;
    std::map<MessageQueue, std::int64_t> suggested_;
    NotificationHandler handler_;
};

}  // namespace detail

/// rmq::Transport over RocketMQ's TCP remoting protocol: NameServer route lookups (refreshed every
/// poll_name_server_interval), heartbeats to every known broker, long-polling pulls, offsets, orderly locks,
/// SEND_MESSAGE_V2 with zlib compression, send-back. One io thread per transport (and its copies).
///
/// @code
/// rmq::RemotingTransport transport{rmq::RemotingConfig{.namesrv_addr = "127.0.0.1:9876"}};
/// rmq::PushConsumer<rmq::RemotingTransport> consumer{transport, rmq::ConsumerConfig{.consumer_group = "g"}};
/// @endcode
///
/// Copies share the connections and caches; the last copy closes them. Thread-safe. Blocking members must not
/// be called from a pull callback or notification handler (they run on the io thread): rmq::IllegalState.
class RemotingTransport {
public:
    /// Throws rmq::InvalidArgument for an empty or malformed namesrv_addr or non-positive timeouts.
    explicit RemotingTransport(RemotingConfig config)
        : state_(std::make_shared<detail::RemotingTransportState>(std::move(config))) {}

    /// GET_ROUTEINFO_BY_TOPIC (cached; refreshed in the background). rmq::BrokerError(topic_not_exist) for an
    /// unknown topic.
    TopicRoute topic_route(const std::string& topic) { return state_->topic_route(topic); }

    /// HEART_BEAT to every known broker (consumers: masters and slaves; producers: masters), after looking up
    /// the routes of the subscribed topics. Remembered and re-sent after every reconnect and periodically.
    /// Throws only when every broker failed (a broker that is down is logged, as Java does).
    void heartbeat(const HeartbeatData& hb) { state_->heartbeat(hb); }

    /// UNREGISTER_CLIENT to every known broker (empty group names are left out).
    void unregister_client(const std::string& client_id,
                           const std::string& producer_group,
                           const std::string& consumer_group) {
        state_->unregister_client(client_id, producer_group, consumer_group);
    }

    /// GET_CONSUMER_LIST_BY_GROUP on a broker of `topic`.
    std::vector<std::string> consumer_id_list(const std::string& topic, const std::string& group) {
        return state_->consumer_id_list(topic, group);
    }

    /// NOTIFY_CONSUMER_IDS_CHANGED handler (runs on the io thread).
    void set_notification_handler(NotificationHandler handler) {
        state_->set_notification_handler(std::move(handler));
    }

    /// PULL_MESSAGE (asynchronous; the callback runs on the io thread). Goes to the broker id the last answer
    /// suggested for the queue; the commit bit is cleared when that is a slave.
    void pull(const PullArgs& args, PullCallback callback) { state_->pull(args, std::move(callback)); }

    /// QUERY_CONSUMER_OFFSET on the master; nullopt on QUERY_NOT_FOUND.
    std::optional<std::int64_t> query_consumer_offset(const std::string& group, const MessageQueue& mq) {
        return state_->query_consumer_offset(group, mq);
    }

    /// UPDATE_CONSUMER_OFFSET on the master (two-way, so failures surface).
    void update_consumer_offset(const std::string& group, const MessageQueue& mq, std::int64_t offset) {
        state_->update_consumer_offset(group, mq, offset);
    }

    /// GET_MIN_OFFSET.
    std::int64_t min_offset(const MessageQueue& mq) { return state_->min_offset(mq); }

    /// GET_MAX_OFFSET.
    std::int64_t max_offset(const MessageQueue& mq) { return state_->max_offset(mq); }

    /// SEARCH_OFFSET_BY_TIMESTAMP.
    std::int64_t search_offset(const MessageQueue& mq, std::int64_t timestamp_millis) {
        return state_->search_offset(mq, timestamp_millis);
    }

    /// LOCK_BATCH_MQ, one request per broker master; the union of what they locked.
    std::vector<MessageQueue>
    lock_batch(const std::string& group, const std::string& client_id, const std::vector<MessageQueue>& mqs) {
        return state_->lock_batch(group, client_id, mqs);
    }

    /// UNLOCK_BATCH_MQ, one request per broker master.
    void unlock_batch(const std::string& group,
                      const std::string& client_id,
                      const std::vector<MessageQueue>& mqs) {
        state_->unlock_batch(group, client_id, mqs);
    }

    /// SEND_MESSAGE_V2 to the queue's master: UNIQ_KEY added when absent, zlib above
    /// compress_msg_body_over_howmuch, SYSTEM_BUSY retried. rmq::BrokerError for other error codes.
    SendResult send(const Message& msg, const MessageQueue& mq) { return state_->send(msg, mq); }

    /// CONSUMER_SEND_MSG_BACK to the master of the message's broker.
    void send_back(const SendBackArgs& args) { state_->send_back(args); }

    /// rmq::system_clock(): a real cluster lives by wall time.
    [[nodiscard]] std::shared_ptr<Clock> clock() const { return system_clock(); }

    /// Forgets a cached route (the next topic_route asks the NameServer).
    void invalidate_route(const std::string& topic) { state_->invalidate_route(topic); }

    /// The master address of a broker group from the known routes; rmq::Error if unknown.
    [[nodiscard]] std::string master_address(const std::string& broker_name) const {
        return state_->master_address(broker_name);
    }

    [[nodiscard]] const RemotingConfig& config() const noexcept { return state_->config(); }

private:
    std::shared_ptr<detail::RemotingTransportState> state_;
};

static_assert(Transport<RemotingTransport>);

}  // namespace rmq
