#pragma once

// A test transport's base: the embedded broker behind a wrapper that forwards every rmq::Transport operation.
// A test transport derives from it and redeclares only what it changes (the derived name hides the base's).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rmq/transport/in_process.hpp>

namespace rmq_test {

class ForwardingTransport {
public:
    explicit ForwardingTransport(rmq::InProcessTransport inner)
        : inner_(std::move(inner)) {}

    rmq::TopicRoute topic_route(const std::string& topic) { return inner_.topic_route(topic); }

    void heartbeat(const rmq::HeartbeatData& hb) { inner_.heartbeat(hb); }

    void unregister_client(const std::string& c, const std::string& p, const std::string& g) {
        inner_.unregister_client(c, p, g);
    }

    std::vector<std::string> consumer_id_list(const std::string& t, const std::string& g) {
        return inner_.consumer_id_list(t, g);
    }

    void set_notification_handler(rmq::NotificationHandler h) {
        inner_.set_notification_handler(std::move(h));
    }

    void pull(const rmq::PullArgs& a, rmq::PullCallback cb) { inner_.pull(a, std::move(cb)); }

    std::optional<std::int64_t> query_consumer_offset(const std::string& g, const rmq::MessageQueue& mq) {
        return inner_.query_consumer_offset(g, mq);
    }

    void update_consumer_offset(const std::string& g, const rmq::MessageQueue& mq, std::int64_t v) {
        inner_.update_consumer_offset(g, mq, v);
    }

    std::int64_t min_offset(const rmq::MessageQueue& mq) { return inner_.min_offset(mq); }

    std::int64_t max_offset(const rmq::MessageQueue& mq) { return inner_.max_offset(mq); }

    std::int64_t search_offset(const rmq::MessageQueue& mq, std::int64_t ts) {
        return inner_.search_offset(mq, ts);
    }

    std::vector<rmq::MessageQueue>
    lock_batch(const std::string& g, const std::string& c, const std::vector<rmq::MessageQueue>& mqs) {
        return inner_.lock_batch(g, c, mqs);
    }

    void unlock_batch(const std::string& g, const std::string& c, const std::vector<rmq::MessageQueue>& mqs) {
        inner_.unlock_batch(g, c, mqs);
    }

    rmq::SendResult send(const rmq::Message& msg, const rmq::MessageQueue& mq) {
        return inner_.send(msg, mq);
    }

    void send_back(const rmq::SendBackArgs& args) { inner_.send_back(args); }

    void end_transaction(const rmq::EndTransactionArgs& args) { inner_.end_transaction(args); }

    void set_transaction_check_handler(const std::string& group, rmq::TransactionCheckHandler h) {
        inner_.set_transaction_check_handler(group, std::move(h));
    }

    [[nodiscard]] std::shared_ptr<rmq::Clock> clock() const { return inner_.clock(); }

protected:
    rmq::InProcessTransport inner_;
};

}  // namespace rmq_test
