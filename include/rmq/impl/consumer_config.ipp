#pragma once

/// @file impl/consumer_config.ipp
/// Definitions of consumer_config.hpp.

#include <rmq/consumer_config.hpp>

// Only the definitions need these.
#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <limits>

#include <fmt/format.h>

#if defined(__unix__) || defined(__APPLE__)
#    include <arpa/inet.h>
#    include <ifaddrs.h>
#    include <netinet/in.h>
#    include <sys/socket.h>
#    include <unistd.h>
#    define RMQ_HAVE_GETIFADDRS 1
#endif

namespace rmq {

RMQ_DECL std::string detail::local_ipv4_address() {
    std::vector<std::string> found;
#if defined(RMQ_HAVE_GETIFADDRS)
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) == 0) {
        for (const ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
            if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) {
                continue;
            }
            in_addr addr{};
            std::memcpy(&addr, &reinterpret_cast<const sockaddr_in*>(it->ifa_addr)->sin_addr, sizeof addr);
            if ((ntohl(addr.s_addr) >> 24) == 127) {
                continue;  // loopback
            }
            char text[INET_ADDRSTRLEN] = {};
            if (::inet_ntop(AF_INET, &addr, text, sizeof text) != nullptr) {
                found.emplace_back(text);
            }
        }
        ::freeifaddrs(list);
    }
#endif
    for (const auto& ip : found) {
        if (!ip.starts_with("127.0") && !ip.starts_with("192.168")) {
            return ip;
        }
    }
    return found.empty() ? std::string("127.0.0.1") : found.back();
}

RMQ_DECL const std::string& detail::cached_local_ipv4_address() {
    static const std::string ip = local_ipv4_address();
    return ip;
}

RMQ_DECL long detail::current_pid() noexcept {
#if defined(RMQ_HAVE_GETIFADDRS)
    return static_cast<long>(::getpid());
#else
    return 0;
#endif
}

RMQ_DECL std::int64_t detail::unique_nano_time() noexcept {
    static std::atomic<std::int64_t> last{0};
    const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count();
    std::int64_t prev = last.load(std::memory_order_relaxed);
    std::int64_t next = 0;
    do {
        next = now > prev ? now : prev + 1;
    } while (!last.compare_exchange_weak(prev, next, std::memory_order_relaxed));
    return next;
}

RMQ_DECL std::optional<std::int64_t> detail::parse_yyyymmddhhmmss(std::string_view text) {
    if (text.size() != 14) {
        return std::nullopt;
    }
    for (const char c : text) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
    }
    auto num = [&](std::size_t pos, std::size_t len) {
        int v = 0;
        for (std::size_t i = pos; i < pos + len; ++i) {
            v = v * 10 + (text[i] - '0');
        }
        return v;
    };
    std::tm tm{};
    tm.tm_year = num(0, 4) - 1900;
    tm.tm_mon = num(4, 2) - 1;
    tm.tm_mday = num(6, 2);
    tm.tm_hour = num(8, 2);
    tm.tm_min = num(10, 2);
    tm.tm_sec = num(12, 2);
    tm.tm_isdst = -1;
    const std::time_t t = std::mktime(&tm);
    if (t == static_cast<std::time_t>(-1)) {
        return std::nullopt;
    }
    return static_cast<std::int64_t>(t) * 1000;
}

RMQ_DECL std::string detail::format_yyyymmddhhmmss(std::int64_t wall_millis) {
    const auto t = static_cast<std::time_t>(wall_millis / 1000);
    std::tm tm{};
#if defined(RMQ_HAVE_GETIFADDRS)
    ::localtime_r(&t, &tm);
#else
    tm = *std::localtime(&t);
#endif
    return fmt::format("{:04}{:02}{:02}{:02}{:02}{:02}",
                       tm.tm_year + 1900,
                       tm.tm_mon + 1,
                       tm.tm_mday,
                       tm.tm_hour,
                       tm.tm_min,
                       tm.tm_sec);
}

RMQ_DECL void detail::check_range(std::string_view field,
                                  std::string_view java_name,
                                  std::int64_t value,
                                  std::int64_t lo,
                                  std::int64_t hi) {
    if (value < lo || value > hi) {
        throw InvalidArgument(
            fmt::format("{} ({}) out of range [{}, {}]: {}", field, java_name, lo, hi, value));
    }
}

RMQ_DECL void detail::check_positive(std::string_view field, std::int64_t value) {
    if (value <= 0) {
        throw InvalidArgument(fmt::format("{} must be positive (range [1, {}]): {}",
                                          field,
                                          std::numeric_limits<std::int64_t>::max(),
                                          value));
    }
}

RMQ_DECL void ConsumerConfig::validate() const {
    validate_identity();
    validate_flow_control();
    validate_intervals();
}

RMQ_DECL void ConsumerConfig::validate_identity() const {
    check_group(consumer_group);
    if (consumer_group == default_consumer_group) {
        throw InvalidArgument(
            fmt::format("consumer_group (consumerGroup) can not equal {}, please specify another one.",
                        default_consumer_group));
    }
    if (!consume_timestamp.empty() && !detail::parse_yyyymmddhhmmss(consume_timestamp)) {
        throw InvalidArgument(fmt::format(
            "consume_timestamp (consumeTimestamp) is invalid, the valid format is yyyyMMddHHmmss, but "
            "received {}",
            consume_timestamp));
    }
}

RMQ_DECL void ConsumerConfig::validate_flow_control() const {
    detail::check_range("pop_threshold_for_queue", "popThresholdForQueue", pop_threshold_for_queue, 1, 65535);
    detail::check_range("pop_invisible_time", "popInvisibleTime", pop_invisible_time, 5000, 300000);
    detail::check_range("pop_batch_nums", "popBatchNums", pop_batch_nums, 1, 32);
    detail::check_range("consume_thread_min", "consumeThreadMin", consume_thread_min, 1, 1000);
    detail::check_range("consume_thread_max", "consumeThreadMax", consume_thread_max, 1, 1000);
    if (consume_thread_min > consume_thread_max) {
        throw InvalidArgument(
            fmt::format("consume_thread_min (consumeThreadMin) ({}) is larger than consume_thread_max "
                        "(consumeThreadMax) ({})",
                        consume_thread_min,
                        consume_thread_max));
    }
    detail::check_range("consume_concurrently_max_span",
                        "consumeConcurrentlyMaxSpan",
                        consume_concurrently_max_span,
                        1,
                        65535);
    detail::check_range(
        "pull_threshold_for_queue", "pullThresholdForQueue", pull_threshold_for_queue, 1, 65535);
    if (pull_threshold_for_topic != -1) {
        detail::check_range(
            "pull_threshold_for_topic", "pullThresholdForTopic", pull_threshold_for_topic, 1, 6553500);
    }
    detail::check_range(
        "pull_threshold_size_for_queue", "pullThresholdSizeForQueue", pull_threshold_size_for_queue, 1, 1024);
    if (pull_threshold_size_for_topic != -1) {
        detail::check_range("pull_threshold_size_for_topic",
                            "pullThresholdSizeForTopic",
                            pull_threshold_size_for_topic,
                            1,
                            102400);
    }
    detail::check_range("pull_interval", "pullInterval", pull_interval, 0, 65535);
    detail::check_range("consume_message_batch_max_size",
                        "consumeMessageBatchMaxSize",
                        consume_message_batch_max_size,
                        1,
                        1024);
    detail::check_range("pull_batch_size", "pullBatchSize", pull_batch_size, 1, 1024);
    if (max_reconsume_times < -1) {
        throw InvalidArgument(fmt::format("max_reconsume_times (maxReconsumeTimes) out of range [-1, {}]: {}",
                                          std::numeric_limits<std::int32_t>::max(),
                                          max_reconsume_times));
    }
    if (await_termination_millis_when_shutdown < 0) {
        throw InvalidArgument(fmt::format("await_termination_millis_when_shutdown "
                                          "(awaitTerminationMillisWhenShutdown) out of range [0, {}]: {}",
                                          std::numeric_limits<std::int64_t>::max(),
                                          await_termination_millis_when_shutdown));
    }
    if (await_termination_millis_when_destroyed < -1) {
        throw InvalidArgument(fmt::format("await_termination_millis_when_destroyed out of range [-1, {}]: {}",
                                          std::numeric_limits<std::int64_t>::max(),
                                          await_termination_millis_when_destroyed));
    }
}

RMQ_DECL void ConsumerConfig::validate_intervals() const {
    detail::check_positive("consume_timeout", consume_timeout);
    detail::check_positive("poll_name_server_interval", poll_name_server_interval);
    detail::check_positive("heartbeat_broker_interval", heartbeat_broker_interval);
    detail::check_positive("persist_consumer_offset_interval", persist_consumer_offset_interval);
    detail::check_positive("mq_client_api_timeout", mq_client_api_timeout);
    detail::check_positive("rebalance_interval", rebalance_interval);
    detail::check_positive("lock_renewal_interval", lock_renewal_interval);
    detail::check_positive("consume_queue_capacity", consume_queue_capacity);
    detail::check_positive("trace_msg_batch_num", trace_msg_batch_num);
    detail::check_range("stats_log_interval",
                        "statsLogInterval",
                        stats_log_interval,
                        0,
                        std::numeric_limits<std::int64_t>::max());
    detail::check_range("pull_time_delay_mills_when_exception",
                        "pullTimeDelayMillsWhenException",
                        pull_time_delay_mills_when_exception,
                        0,
                        std::numeric_limits<std::int64_t>::max());
    detail::check_range("pull_time_delay_mills_when_flow_control",
                        "PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL",
                        pull_time_delay_mills_when_flow_control,
                        0,
                        std::numeric_limits<std::int64_t>::max());
    detail::check_range("pull_time_delay_mills_when_broker_flow_control",
                        "PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL",
                        pull_time_delay_mills_when_broker_flow_control,
                        0,
                        std::numeric_limits<std::int64_t>::max());
    detail::check_range("pull_time_delay_mills_when_suspend",
                        "PULL_TIME_DELAY_MILLS_WHEN_SUSPEND",
                        pull_time_delay_mills_when_suspend,
                        0,
                        std::numeric_limits<std::int64_t>::max());
    detail::check_range("broker_suspend_max_time_millis",
                        "BROKER_SUSPEND_MAX_TIME_MILLIS",
                        broker_suspend_max_time_millis,
                        0,
                        std::numeric_limits<std::int64_t>::max());
    if (consumer_timeout_millis_when_suspend <= broker_suspend_max_time_millis) {
        throw InvalidArgument(fmt::format("consumer_timeout_millis_when_suspend ({}) must be larger than "
                                          "broker_suspend_max_time_millis ({})",
                                          consumer_timeout_millis_when_suspend,
                                          broker_suspend_max_time_millis));
    }
}

RMQ_DECL std::string ConsumerConfig::effective_instance_name() const {
    if (message_model == MessageModel::Clustering && instance_name == default_instance_name) {
        return fmt::format("{}#{}", detail::current_pid(), detail::unique_nano_time());
    }
    return instance_name;
}

RMQ_DECL std::string ConsumerConfig::build_client_id() const {
    std::string id = fmt::format("{}@{}",
                                 client_ip.empty() ? detail::cached_local_ipv4_address() : client_ip,
                                 effective_instance_name());
    if (!unit_name.empty()) {
        id += fmt::format("@{}", unit_name);
    }
    if (enable_stream_request_type) {
        id += "@STREAM";
    }
    return id;
}

RMQ_DECL std::int64_t ConsumerConfig::consume_timestamp_millis(std::int64_t now_wall_millis) const {
    if (consume_timestamp.empty()) {
        return now_wall_millis - 30 * 60 * 1000;
    }
    if (auto t = detail::parse_yyyymmddhhmmss(consume_timestamp)) {
        return *t;
    }
    throw InvalidArgument(fmt::format(
        "consume_timestamp (consumeTimestamp) is invalid, the valid format is yyyyMMddHHmmss, but "
        "received {}",
        consume_timestamp));
}

RMQ_DECL std::string ConsumerConfig::with_namespace(std::string_view resource) const {
    return wrap_namespace(resource, namespace_);
}

}  // namespace rmq
