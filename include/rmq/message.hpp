#pragma once

/// @file message.hpp
/// rmq::Message and rmq::MessageExt (Java's Message / MessageExt / MessageClientExt), property names and the
/// properties string codec.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <rmq/config.hpp>
#include <rmq/properties.hpp>

namespace rmq {

/// Property names of MessageConst that rmq reads or writes.
namespace property {
inline constexpr std::string_view tags = "TAGS";
inline constexpr std::string_view keys = "KEYS";
inline constexpr std::string_view wait_store_msg_ok = "WAIT";
inline constexpr std::string_view delay_time_level = "DELAY";
inline constexpr std::string_view retry_topic = "RETRY_TOPIC";
inline constexpr std::string_view real_topic = "REAL_TOPIC";
inline constexpr std::string_view real_queue_id = "REAL_QID";
inline constexpr std::string_view transaction_prepared = "TRAN_MSG";
inline constexpr std::string_view producer_group = "PGROUP";
/// A half message's first check-back no sooner than this many seconds after its birth (instead of the
/// broker's transactionTimeOut); set it on the message before send_message_in_transaction.
inline constexpr std::string_view check_immunity_time_in_seconds = "CHECK_IMMUNITY_TIME_IN_SECONDS";
inline constexpr std::string_view min_offset = "MIN_OFFSET";
inline constexpr std::string_view max_offset = "MAX_OFFSET";
inline constexpr std::string_view reconsume_time = "RECONSUME_TIME";
inline constexpr std::string_view max_reconsume_times = "MAX_RECONSUME_TIMES";
inline constexpr std::string_view consume_start_timestamp = "CONSUME_START_TIME";
inline constexpr std::string_view origin_message_id = "ORIGIN_MESSAGE_ID";
inline constexpr std::string_view uniq_client_message_id_keyidx = "UNIQ_KEY";
inline constexpr std::string_view sharding_key = "__SHARDINGKEY";
inline constexpr std::string_view msg_region = "MSG_REGION";
inline constexpr std::string_view trace_switch = "TRACE_ON";
/// 5.x timer messages: deliver at this wall time (ms since the epoch).
inline constexpr std::string_view timer_deliver_ms = "TIMER_DELIVER_MS";
/// 5.x timer messages: deliver this many seconds after the broker stores it.
inline constexpr std::string_view timer_delay_sec = "TIMER_DELAY_SEC";
/// 5.x timer messages: deliver this many milliseconds after the broker stores it.
inline constexpr std::string_view timer_delay_ms = "TIMER_DELAY_MS";
/// Set by the broker on a timer message: the wall time (ms) it is due.
inline constexpr std::string_view timer_out_ms = "TIMER_OUT_MS";
/// 5.x POP: the receipt of a popped message (ExtraInfoUtil's extraInfo, rmq::PopReceipt), sent back by
/// ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME.
inline constexpr std::string_view pop_ck = "POP_CK";
/// 5.x POP: the wall time (ms) the message was first popped.
inline constexpr std::string_view first_pop_time = "1ST_POP_TIME";
/// Separator between name and value (U+0001) and between entries (U+0002) in the properties string.
inline constexpr char name_value_separator = '\x01';
inline constexpr char property_separator = '\x02';
/// How many properties a push consumer adds to every pulled message (MIN_OFFSET, MAX_OFFSET,
/// CONSUME_START_TIME): the room a pull is decoded with.
inline constexpr std::size_t consumer_stamped_count = 3;
}  // namespace property

/// Java's MessageDecoder.messageProperties2String: `name\1value\2...` without the trailing `\2`.
std::string encode_properties(const Properties& props);

/// Java's MessageDecoder.string2messageProperties: an entry is `name\1value` split at the first `\1`; entries
/// without a separator, with an empty name or with an empty value are skipped; a later duplicate name wins.
Properties decode_properties(std::string_view text);

/// The same, with room for `room` more entries allocated with them (a consumer stamps three on every pulled
/// message: decoded with that room, they need no second allocation).
Properties decode_properties(std::string_view text, std::size_t room);

/// A message as a producer builds it (Java's Message): topic, flag, properties and body.
class Message {
public:
    /// The property map (rmq::Properties: ordered by name, flat).
    using Properties = rmq::Properties;

    Message() = default;

    /// Java's `Message(topic, body)`.
    Message(std::string topic, std::string body)
        : topic_(std::move(topic))
        , body_(std::move(body)) {}

    /// Java's `Message(topic, tags, body)`.
    Message(std::string topic, std::string_view tags, std::string body)
        : Message(std::move(topic), tags, std::string_view{}, std::move(body)) {}

    /// Java's `Message(topic, tags, keys, body)`; empty tags/keys set no property. Body is text or bytes.
    Message(std::string topic, std::string_view tags, std::string_view keys, std::string body);

    /// Same, with a binary body.
    Message(std::string topic, std::string_view tags, std::string_view keys, std::span<const std::byte> body)
        : Message(std::move(topic),
                  tags,
                  keys,
                  std::string(reinterpret_cast<const char*>(body.data()), body.size())) {}

    [[nodiscard]] const std::string& topic() const noexcept { return topic_; }

    void set_topic(std::string topic) { topic_ = std::move(topic); }

    [[nodiscard]] std::int32_t flag() const noexcept { return flag_; }

    void set_flag(std::int32_t flag) noexcept { flag_ = flag; }

    /// The body bytes (held in a std::string: text bodies read naturally, binary ones are kept byte for
    /// byte).
    [[nodiscard]] const std::string& body() const noexcept { return body_; }

    /// The body as raw bytes.
    [[nodiscard]] std::span<const std::byte> body_bytes() const noexcept {
        return {reinterpret_cast<const std::byte*>(body_.data()), body_.size()};
    }

    void set_body(std::string body) { body_ = std::move(body); }

    /// Property `TAGS`, or empty.
    [[nodiscard]] std::string_view tags() const noexcept { return property_view(property::tags); }

    void set_tags(std::string_view tags) { set_property(property::tags, tags); }

    /// Property `KEYS`, or empty.
    [[nodiscard]] std::string_view keys() const noexcept { return property_view(property::keys); }

    void set_keys(std::string_view keys) { set_property(property::keys, keys); }

    /// Property `DELAY` as a number (0 when absent or malformed).
    [[nodiscard]] std::int32_t delay_time_level() const noexcept;

    void set_delay_time_level(std::int32_t level) {
        set_property(property::delay_time_level, std::to_string(level));
    }

    /// Java 5.x setDeliverTimeMs: a timer message delivered at this wall time (ms since the epoch); needs a
    /// 5.x broker (a 4.x one would deliver it at once: rmq refuses to send it there).
    void set_deliver_time_ms(std::int64_t wall_millis) {
        set_property(property::timer_deliver_ms, std::to_string(wall_millis));
    }

    /// Java 5.x setDelayTimeSec: a timer message delivered this many seconds after it is stored.
    void set_delay_time_sec(std::int64_t seconds) {
        set_property(property::timer_delay_sec, std::to_string(seconds));
    }

    /// Java 5.x setDelayTimeMs: a timer message delivered this many milliseconds after it is stored.
    void set_delay_time_ms(std::int64_t millis) {
        set_property(property::timer_delay_ms, std::to_string(millis));
    }

    /// Whether one of the timer properties (TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS) is set.
    [[nodiscard]] bool is_timer_message() const noexcept {
        return has_property(property::timer_deliver_ms) || has_property(property::timer_delay_sec) ||
               has_property(property::timer_delay_ms);
    }

    /// The value of a property, if present.
    [[nodiscard]] std::optional<std::string> property(std::string_view name) const {
        if (const auto it = find_property(name); it != properties_.end()) {
            return it->second;
        }
        return std::nullopt;
    }

    /// The value of a property as a view into the message, empty when absent.
    [[nodiscard]] std::string_view property_view(std::string_view name) const noexcept {
        if (const auto it = find_property(name); it != properties_.end()) {
            return it->second;
        }
        return {};
    }

    [[nodiscard]] bool has_property(std::string_view name) const noexcept {
        return find_property(name) != properties_.end();
    }

    void set_property(std::string_view name, std::string_view value) {
        properties_.insert_or_assign(name, value);
    }

    /// Sets several properties in one go (names in ascending order are placed in one pass, see
    /// Properties::insert_or_assign).
    void set_property(std::initializer_list<std::pair<std::string_view, std::string_view>> entries) {
        properties_.insert_or_assign(entries);
    }

    void clear_property(std::string_view name) { properties_.erase(name); }

    [[nodiscard]] const Properties& properties() const noexcept { return properties_; }

    void set_properties(Properties props) { properties_ = std::move(props); }

    /// Room for `n` properties without a reallocation.
    void reserve_properties(std::size_t n) { properties_.reserve(n); }

    /// Drops the room for more properties left by reserve_properties or by their growth (a message kept
    /// long).
    void shrink_properties() { properties_.shrink_to_fit(); }

    /// Java's getTransactionId.
    [[nodiscard]] const std::string& transaction_id() const noexcept { return transaction_id_; }

    void set_transaction_id(std::string id) { transaction_id_ = std::move(id); }

    friend bool operator==(const Message&, const Message&) = default;

protected:
    /// A copy whose properties have room for `property_room` more (MessageExt's copy with room).
    Message(const Message& other, std::size_t property_room)
        : topic_(other.topic_)
        , flag_(other.flag_)
        , properties_(other.properties_, property_room)
        , body_(other.body_)
        , transaction_id_(other.transaction_id_) {}

private:
    [[nodiscard]] Properties::const_iterator find_property(std::string_view name) const noexcept {
        return properties_.find(name);
    }

    std::string topic_;
    std::int32_t flag_ = 0;
    Properties properties_;
    std::string body_;
    std::string transaction_id_;
};

/// A stored message as a consumer sees it (Java's MessageExt / MessageClientExt).
class MessageExt : public Message {
public:
    using Message::Message;

    MessageExt() = default;

    /// A copy whose properties have room for `property_room` more, allocated with the copy: a consumer copies
    /// a pulled message and then stamps it (CONSUME_START_TIME, MAX_OFFSET, MIN_OFFSET), which would
    /// otherwise reallocate the copy's properties.
    MessageExt(const MessageExt& other, std::size_t property_room)
        : Message(other, property_room)
        , ext_(other.ext_) {}

    [[nodiscard]] const std::string& broker_name() const noexcept { return ext_.broker_name; }

    void set_broker_name(std::string name) { ext_.broker_name = std::move(name); }

    [[nodiscard]] std::int32_t queue_id() const noexcept { return ext_.queue_id; }

    void set_queue_id(std::int32_t id) noexcept { ext_.queue_id = id; }

    [[nodiscard]] std::int32_t store_size() const noexcept { return ext_.store_size; }

    void set_store_size(std::int32_t size) noexcept { ext_.store_size = size; }

    /// Logical offset in the consume queue.
    [[nodiscard]] std::int64_t queue_offset() const noexcept { return ext_.queue_offset; }

    void set_queue_offset(std::int64_t offset) noexcept { ext_.queue_offset = offset; }

    [[nodiscard]] std::int32_t sys_flag() const noexcept { return ext_.sys_flag; }

    void set_sys_flag(std::int32_t flag) noexcept { ext_.sys_flag = flag; }

    [[nodiscard]] std::int64_t born_timestamp() const noexcept { return ext_.born_timestamp; }

    void set_born_timestamp(std::int64_t ts) noexcept { ext_.born_timestamp = ts; }

    /// `ip:port` of the producer.
    [[nodiscard]] const std::string& born_host() const noexcept { return ext_.born_host; }

    void set_born_host(std::string host) { ext_.born_host = std::move(host); }

    [[nodiscard]] std::int64_t store_timestamp() const noexcept { return ext_.store_timestamp; }

    void set_store_timestamp(std::int64_t ts) noexcept { ext_.store_timestamp = ts; }

    /// `ip:port` of the broker that stored it.
    [[nodiscard]] const std::string& store_host() const noexcept { return ext_.store_host; }

    void set_store_host(std::string host) { ext_.store_host = std::move(host); }

    /// Physical offset in the commit log.
    [[nodiscard]] std::int64_t commit_log_offset() const noexcept { return ext_.commit_log_offset; }

    void set_commit_log_offset(std::int64_t offset) noexcept { ext_.commit_log_offset = offset; }

    [[nodiscard]] std::int32_t body_crc() const noexcept { return ext_.body_crc; }

    void set_body_crc(std::int32_t crc) noexcept { ext_.body_crc = crc; }

    [[nodiscard]] std::int32_t reconsume_times() const noexcept { return ext_.reconsume_times; }

    void set_reconsume_times(std::int32_t times) noexcept { ext_.reconsume_times = times; }

    [[nodiscard]] std::int64_t prepared_transaction_offset() const noexcept {
        return ext_.prepared_transaction_offset;
    }

    void set_prepared_transaction_offset(std::int64_t offset) noexcept {
        ext_.prepared_transaction_offset = offset;
    }

    /// MessageClientExt.getMsgId: the producer's UNIQ_KEY when present, else the offset message id.
    [[nodiscard]] std::string msg_id() const {
        const auto uniq = property_view(property::uniq_client_message_id_keyidx);
        return uniq.empty() ? ext_.offset_msg_id : std::string(uniq);
    }

    /// The broker-made id (store host + commit log offset).
    [[nodiscard]] const std::string& offset_msg_id() const noexcept { return ext_.offset_msg_id; }

    void set_offset_msg_id(std::string id) { ext_.offset_msg_id = std::move(id); }

    friend bool operator==(const MessageExt&, const MessageExt&) = default;

private:
    // MessageExt's own fields, in one member: the copy with room copies them at once.
    struct Ext {
        std::string broker_name;
        std::int32_t queue_id = 0;
        std::int32_t store_size = 0;
        std::int64_t queue_offset = 0;
        std::int32_t sys_flag = 0;
        std::int64_t born_timestamp = 0;
        std::string born_host;
        std::int64_t store_timestamp = 0;
        std::string store_host;
        std::int64_t commit_log_offset = 0;
        std::int32_t body_crc = 0;
        std::int32_t reconsume_times = 0;
        std::int64_t prepared_transaction_offset = 0;
        std::string offset_msg_id;

        friend bool operator==(const Ext&, const Ext&) = default;
    };

    Ext ext_;
};

}  // namespace rmq

#if RMQ_INCLUDE_IMPL
#    include <rmq/impl/message.ipp>
#endif
