#pragma once

/// @file producer_config.hpp
/// rmq::ProducerConfig: the settings of rmq::Producer.

#include <cstdint>
#include <string>

#include <rmq/topic.hpp>

namespace rmq {

/// Settings of rmq::Producer; each field is the snake_case of the DefaultMQProducer / ClientConfig field it
/// mirrors, with Java's default.
struct ProducerConfig {
    /// DefaultMQProducer.producerGroup; must be set (DEFAULT_PRODUCER is rejected at start, as in Java).
    std::string producer_group{default_producer_group};
    /// DefaultMQProducer.createTopicKey: the route used for a topic the name server does not know yet.
    std::string create_topic_key{auto_create_topic_key_topic};
    /// DefaultMQProducer.defaultTopicQueueNums: queues assumed for such a topic.
    std::int32_t default_topic_queue_nums = 4;
    /// DefaultMQProducer.sendMsgTimeout (ms, measured with the transport's clock).
    std::int64_t send_msg_timeout = 3000;
    /// DefaultMQProducer.retryTimesWhenSendFailed: extra attempts of send(msg) on another queue.
    std::int32_t retry_times_when_send_failed = 2;
    /// DefaultMQProducer.retryTimesWhenSendAsyncFailed: extra attempts of send_async(msg) on another queue.
    std::int32_t retry_times_when_send_async_failed = 2;
    /// DefaultMQProducer.backPressureForAsyncSendNum: asynchronous and oneway sends in flight at most; a
    /// further one waits up to send_msg_timeout for a slot (rmq::TooManyRequests after it).
    std::int32_t back_pressure_for_async_send_num = 10000;
    /// Threads of the asynchronous sends (Java's asyncSenderExecutor, one per processor); 0 = one per
    /// hardware thread, at least 2. Started by the first asynchronous or oneway send.
    std::int32_t async_sender_threads = 0;
    /// DefaultMQProducer.retryAnotherBrokerWhenNotStoreOK.
    bool retry_another_broker_when_not_store_ok = false;
    /// DefaultMQProducer.maxMessageSize (body bytes).
    std::int32_t max_message_size = 1024 * 1024 * 4;
    /// ClientConfig.pollNameServerInterval: how long a cached topic route is used (ms).
    std::int64_t poll_name_server_interval = 30000;
    /// ClientConfig.instanceName; "DEFAULT" becomes the process id, as in Java.
    std::string instance_name = "DEFAULT";
    /// ClientConfig.clientIP; empty means this host's address.
    std::string client_ip{};
    /// ClientConfig.enableTrace (DefaultMQProducer's enableMsgTrace): every send that gets an answer is
    /// traced to the trace topic (Pub records; transactions also EndTransaction records), for RocketMQ
    /// Dashboard. docs/trace.md.
    bool enable_msg_trace = false;
    /// ClientConfig.traceTopic (DefaultMQProducer's customizedTraceTopic): the trace topic; empty means
    /// RMQ_SYS_TRACE_TOPIC.
    std::string customized_trace_topic{};
    /// ClientConfig.traceMsgBatchNum: trace records sent together (at most 20); fewer are sent after 5 s.
    std::int32_t trace_msg_batch_num = 10;
    /// TransactionMQProducer.checkThreadPoolMaxSize: threads answering brokers' transaction check-backs
    /// (rmq::TransactionProducer only).
    std::int32_t check_thread_pool_max_size = 1;
    /// TransactionMQProducer.checkRequestHoldMax: check-backs waiting for those threads at most; a further
    /// one is dropped (logged), the broker asks again at its next check round.
    std::int32_t check_request_hold_max = 2000;
};

}  // namespace rmq
