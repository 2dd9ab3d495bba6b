#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include <rmq/detail/broker/store.hpp>
#include <rmq/detail/broker/transactions.hpp>
#include <rmq/detail/util/java_string.hpp>

namespace rmq::detail {

RMQ_DECL bool is_half_message(const Message& m) {
    return parse_java_boolean(m.property_view(property::transaction_prepared));
}

RMQ_DECL void make_half(MessageExt& m) {
    m.set_property(property::real_topic, m.topic());
    m.set_property(property::real_queue_id, std::to_string(m.queue_id()));
    m.set_topic(std::string(trans_half_topic));
    m.set_queue_id(0);
}

/// The fields a copy of a stored message keeps (what MessageExtBrokerInner copies take over).
RMQ_DECL MessageExt copy_of_stored(const MessageExt& src) {
    MessageExt m;
    m.set_topic(src.topic());
    m.set_queue_id(src.queue_id());
    m.set_properties(src.properties());
    m.set_body(src.body());
    m.set_flag(src.flag());
    m.set_sys_flag(src.sys_flag());
    m.set_born_timestamp(src.born_timestamp());
    m.set_born_host(src.born_host());
    m.set_reconsume_times(src.reconsume_times());
    return m;
}

RMQ_DECL MessageExt committed_message(const MessageExt& half) {
    MessageExt m = copy_of_stored(half);
    m.set_topic(std::string(half.property_view(property::real_topic)));
    m.set_queue_id(parse_int_or(half.property_view(property::real_queue_id), 0));
    m.clear_property(property::real_topic);
    m.clear_property(property::real_queue_id);
    m.clear_property(property::transaction_prepared);
    m.set_sys_flag((half.sys_flag() & ~0xC) | sys_flag_transaction_commit);
    m.set_prepared_transaction_offset(half.commit_log_offset());
    m.set_transaction_id(std::string(half.property_view(property::uniq_client_message_id_keyidx)));
    return m;
}

RMQ_DECL MessageExt op_message(const MessageExt& half) {
    MessageExt m;
    m.set_topic(std::string(trans_op_half_topic));
    m.set_queue_id(0);
    m.set_tags(trans_op_remove_tag);
    m.set_body(std::to_string(half.queue_offset()));
    m.set_born_timestamp(half.born_timestamp());
    m.set_born_host(half.born_host());
    return m;
}

RMQ_DECL MessageExt put_back_copy(const MessageExt& half, std::int32_t check_times) {
    MessageExt m = copy_of_stored(half);
    m.set_property(property_transaction_check_times, std::to_string(check_times));
    return m;
}

RMQ_DECL MessageExt discarded_copy(const MessageExt& half) {
    MessageExt m = copy_of_stored(half);
    m.set_topic(std::string(trans_check_max_time_topic));
    m.set_queue_id(0);
    return m;
}

RMQ_DECL TransactionCheck check_of(const MessageExt& half, std::string_view broker_name) {
    TransactionCheck c;
    c.broker_name = std::string(broker_name);
    c.topic = half.topic();
    c.tran_state_table_offset = half.queue_offset();
    c.commit_log_offset = half.commit_log_offset();
    c.offset_msg_id = half.offset_msg_id();
    c.msg_id = std::string(half.property_view(property::uniq_client_message_id_keyidx));
    c.transaction_id = c.msg_id;
    c.message = half;
    c.message.set_topic(std::string(half.property_view(property::real_topic)));
    c.message.set_queue_id(parse_int_or(half.property_view(property::real_queue_id), 0));
    c.message.set_store_size(0);
    c.message.set_transaction_id(c.msg_id);
    return c;
}

RMQ_DECL void HalfMessages::add(std::shared_ptr<const MessageExt> stored) {
    const std::int64_t offset = stored->commit_log_offset();
    pending_.emplace(offset, std::move(stored));
}

RMQ_DECL std::shared_ptr<const MessageExt> HalfMessages::find(std::int64_t commit_log_offset) const {
    if (const auto a = aliases_.find(commit_log_offset); a != aliases_.end()) {
        commit_log_offset = a->second;
    }
    const auto it = pending_.find(commit_log_offset);
    return it == pending_.end() ? nullptr : it->second;
}

RMQ_DECL void HalfMessages::remove(std::int64_t commit_log_offset) {
    pending_.erase(commit_log_offset);
    std::erase_if(aliases_, [&](const auto& a) { return a.second == commit_log_offset; });
}

RMQ_DECL void HalfMessages::replace(std::int64_t from, std::shared_ptr<const MessageExt> copy) {
    const std::int64_t to = copy->commit_log_offset();
    pending_.erase(from);
    for (auto& a : aliases_) {
        if (a.second == from) {
            a.second = to;
        }
    }
    aliases_[from] = to;
    pending_.emplace(to, std::move(copy));
}

RMQ_DECL std::int64_t check_immunity_millis(const MessageExt& half, std::int64_t transaction_time_out) {
    if (!half.has_property(property::check_immunity_time_in_seconds)) {
        return transaction_time_out;
    }
    const auto seconds = parse_java_long(half.property_view(property::check_immunity_time_in_seconds));
    if (!seconds || *seconds == -1) {  // Java's getLong answers -1 for what does not parse
        return transaction_time_out;
    }
    constexpr std::int64_t max_seconds = std::numeric_limits<std::int64_t>::max() / 1000;
    return std::clamp(*seconds, -max_seconds, max_seconds) * 1000;
}

RMQ_DECL std::vector<std::shared_ptr<const MessageExt>> HalfMessages::take_round(std::int64_t now,
                                                                                 std::int64_t wall_now) {
    std::vector<std::shared_ptr<const MessageExt>> due;
    if (now < next_round_) {
        return due;
    }
    while (next_round_ <= now) {
        next_round_ += std::max<std::int64_t>(interval_, 1);
    }
    for (const auto& [offset, m] : pending_) {
        if (wall_now - m->born_timestamp() >= check_immunity_millis(*m, time_out_)) {
            due.push_back(m);
        }
    }
    return due;
}

RMQ_DECL std::optional<std::int64_t> HalfMessages::next_round() const {
    if (pending_.empty()) {
        return std::nullopt;
    }
    return next_round_;
}

}  // namespace rmq::detail
