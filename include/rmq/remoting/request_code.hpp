#pragma once

/// @file remoting/request_code.hpp
/// RocketMQ request codes (Java's RequestCode). The response codes are rmq::response_code (rmq/protocol.hpp),
/// one list shared by the wire format, every transport and the embedded broker.

#include <cstdint>

namespace rmq::remoting::request_code {

/// Java's RequestCode values a client sends or receives.
inline constexpr std::int32_t send_message = 10;
inline constexpr std::int32_t pull_message = 11;
inline constexpr std::int32_t query_message = 12;
inline constexpr std::int32_t query_broker_offset = 13;
inline constexpr std::int32_t query_consumer_offset = 14;
inline constexpr std::int32_t update_consumer_offset = 15;
inline constexpr std::int32_t update_and_create_topic = 17;
inline constexpr std::int32_t get_all_topic_config = 21;
inline constexpr std::int32_t get_broker_config = 26;
inline constexpr std::int32_t get_broker_runtime_info = 28;
inline constexpr std::int32_t search_offset_by_timestamp = 29;
inline constexpr std::int32_t get_max_offset = 30;
inline constexpr std::int32_t get_min_offset = 31;
inline constexpr std::int32_t get_earliest_msg_storetime = 32;
inline constexpr std::int32_t view_message_by_id = 33;
inline constexpr std::int32_t heart_beat = 34;
inline constexpr std::int32_t unregister_client = 35;
inline constexpr std::int32_t consumer_send_msg_back = 36;
inline constexpr std::int32_t end_transaction = 37;
inline constexpr std::int32_t get_consumer_list_by_group = 38;
inline constexpr std::int32_t check_transaction_state = 39;
inline constexpr std::int32_t notify_consumer_ids_changed = 40;
inline constexpr std::int32_t lock_batch_mq = 41;
inline constexpr std::int32_t unlock_batch_mq = 42;
inline constexpr std::int32_t get_all_consumer_offset = 43;
inline constexpr std::int32_t get_all_delay_offset = 45;
inline constexpr std::int32_t check_client_config = 46;
inline constexpr std::int32_t get_client_config = 47;
inline constexpr std::int32_t register_broker = 103;
inline constexpr std::int32_t unregister_broker = 104;
inline constexpr std::int32_t get_routeinfo_by_topic = 105;
inline constexpr std::int32_t get_broker_cluster_info = 106;
inline constexpr std::int32_t update_and_create_subscriptiongroup = 200;
inline constexpr std::int32_t get_all_subscriptiongroup_config = 201;
inline constexpr std::int32_t get_topic_stats_info = 202;
inline constexpr std::int32_t get_consumer_connection_list = 203;
inline constexpr std::int32_t get_producer_connection_list = 204;
inline constexpr std::int32_t get_all_topic_list_from_nameserver = 206;
inline constexpr std::int32_t delete_subscriptiongroup = 207;
inline constexpr std::int32_t get_consume_stats = 208;
inline constexpr std::int32_t delete_topic_in_broker = 215;
inline constexpr std::int32_t delete_topic_in_namesrv = 216;
inline constexpr std::int32_t reset_consumer_client_offset = 220;
inline constexpr std::int32_t get_consumer_status_from_client = 221;
inline constexpr std::int32_t invoke_broker_to_reset_offset = 222;
inline constexpr std::int32_t invoke_broker_to_get_consumer_status = 223;
inline constexpr std::int32_t query_topic_consume_by_who = 300;
inline constexpr std::int32_t get_consumer_running_info = 307;
inline constexpr std::int32_t consume_message_directly = 309;
inline constexpr std::int32_t send_message_v2 = 310;
inline constexpr std::int32_t send_batch_message = 320;
inline constexpr std::int32_t query_consume_queue = 321;
inline constexpr std::int32_t send_reply_message = 324;
inline constexpr std::int32_t send_reply_message_v2 = 325;
inline constexpr std::int32_t push_reply_message_to_client = 326;
inline constexpr std::int32_t lite_pull_message = 361;
inline constexpr std::int32_t query_assignment = 400;
inline constexpr std::int32_t set_message_request_mode = 401;
inline constexpr std::int32_t get_all_message_request_mode = 402;
/// 5.x POP requests. Their codes do not fit the ROCKETMQ binary header's int16 code (Java's
/// RocketMQSerializable casts them to short, which no broker understands): they always travel with a JSON
/// header (rmq::remoting::request_serialize_type).
inline constexpr std::int32_t pop_message = 200050;
inline constexpr std::int32_t ack_message = 200051;
inline constexpr std::int32_t peek_message = 200052;
inline constexpr std::int32_t change_message_invisibletime = 200053;
inline constexpr std::int32_t notification = 200054;
inline constexpr std::int32_t polling_info = 200055;
inline constexpr std::int32_t batch_ack_message = 200151;
}  // namespace rmq::remoting::request_code
