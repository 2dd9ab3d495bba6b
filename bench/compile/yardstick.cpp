// Compile-cost yardstick (tools/bench.sh --compile): the unit of the compile-cost ratios. A small but
// honest application TU using what a typical service TU uses — fmt, nlohmann::json, std threads and
// containers — so that "probe = N x yardstick" reads as "including rmq costs N ordinary TUs". Keep it
// stable: changing it changes every recorded ratio.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace {

struct Order {
    std::string id;
    std::string customer;
    std::int64_t amount_cents = 0;
    std::vector<std::string> items;
};

void to_json(nlohmann::json& j, const Order& o) {
    j = nlohmann::json{
        {"id", o.id}, {"customer", o.customer}, {"amount_cents", o.amount_cents}, {"items", o.items}};
}

void from_json(const nlohmann::json& j, Order& o) {
    j.at("id").get_to(o.id);
    j.at("customer").get_to(o.customer);
    j.at("amount_cents").get_to(o.amount_cents);
    j.at("items").get_to(o.items);
}

// A bounded work queue served by a few threads.
class WorkQueue {
public:
    explicit WorkQueue(int threads) {
        for (int i = 0; i < threads; ++i) {
            workers_.emplace_back([this] { run(); });
        }
    }

    WorkQueue(const WorkQueue&) = delete;
    WorkQueue& operator=(const WorkQueue&) = delete;

    ~WorkQueue() {
        {
            const std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        cv_.notify_all();
        for (auto& t : workers_) {
            t.join();
        }
    }

    void post(std::function<void()> task) {
        {
            const std::lock_guard lock(mutex_);
            tasks_.push_back(std::move(task));
        }
        cv_.notify_one();
    }

private:
    void run() {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock lock(mutex_);
                cv_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
                if (tasks_.empty()) {
                    return;
                }
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();
        }
    }

    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> tasks_;
    std::vector<std::thread> workers_;
    bool stopping_ = false;
};

std::optional<Order> parse(const std::string& text) {
    try {
        return nlohmann::json::parse(text).get<Order>();
    } catch (const nlohmann::json::exception& e) {
        fmt::print(stderr, "bad order: {}\n", e.what());
        return std::nullopt;
    }
}

}  // namespace

int main() {
    std::vector<std::string> inputs;
    for (int i = 0; i < 100; ++i) {
        Order o{fmt::format("order-{:04}", i), fmt::format("customer-{}", i % 7), 100 * i, {"apple", "pear"}};
        inputs.push_back(nlohmann::json(o).dump());
    }
    std::mutex mutex;
    std::map<std::string, std::int64_t> totals;
    std::unordered_map<std::string, int> counts;
    const auto start = std::chrono::steady_clock::now();
    {
        WorkQueue queue(4);
        for (const auto& text : inputs) {
            queue.post([&, text] {
                if (auto o = parse(text)) {
                    const std::lock_guard lock(mutex);
                    totals[o->customer] += o->amount_cents;
                    ++counts[o->customer];
                }
            });
        }
    }
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    nlohmann::json report = nlohmann::json::object();
    for (const auto& [customer, total] : totals) {
        report[customer] = {{"total_cents", total}, {"orders", counts[customer]}};
    }
    std::vector<std::pair<std::string, std::int64_t>> ranked(totals.begin(), totals.end());
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    fmt::print("{}\ntop customer: {} ({} cents) in {} us\n",
               report.dump(2),
               ranked.front().first,
               ranked.front().second,
               elapsed.count());
    return 0;
}
