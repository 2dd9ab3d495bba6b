#pragma once

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/protocol.hpp>

#include <rmq/detail/net/refusal.hpp>
#include <rmq/detail/remoting_transport/caller.hpp>
#include <rmq/detail/util/plain_failure.hpp>

namespace rmq::detail {

RMQ_DECL std::exception_ptr fresh_exception(const std::exception_ptr& e) {
    return PlainFailure::of(e, "remoting request failed with an unknown error").fresh();
}

RMQ_DECL remoting::Command
RemotingCaller::call(const std::string& addr, const remoting::Command& req, std::int64_t timeout) {
    std::int64_t backoff = 50;
    for (int attempt = 0;; ++attempt) {
        auto resp = client_.invoke_sync(addr, req, timeout);
        {
            const std::lock_guard lock(versions_mutex_);
            versions_.insert_or_assign(addr, resp.version);
        }
        if (resp.code != response_code::system_busy || attempt >= config_.system_busy_retry_times) {
            return resp;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(backoff));
        backoff = std::min<std::int64_t>(backoff * 2, 1000);
    }
}

RMQ_DECL RemotingCaller::Results RemotingCaller::call_all(const Calls& calls, std::int64_t timeout) {
    if (client_.on_io_thread()) {
        throw IllegalState("blocking remoting call on the remoting io thread");
    }
    std::vector<std::future<CallResult>> futures;
    for (const auto& [addr, cmd] : calls) {
        auto p = std::make_shared<std::promise<CallResult>>();
        futures.push_back(p->get_future());
        try {
            client_.invoke_async(
                addr, cmd, timeout, [p](std::optional<remoting::Command> r, const std::exception_ptr& e) {
                    if (e) {
                        p->set_value(CallResult(fresh_exception(e)));
                    } else {
                        p->set_value(CallResult(std::move(*r)));
                    }
                });
        } catch (...) {
            p->set_value(CallResult(std::current_exception()));
        }
    }
    Results out;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        out.emplace_back(calls[i].first, futures[i].get());
    }
    return out;
}

RMQ_DECL void RemotingCaller::check_success(const remoting::Command& resp, const std::string& what) {
    if (resp.code != response_code::success) {
        const auto remark = resp.remark.value_or("(no remark)");
        throw_broker_error(resp.code, remark, fmt::format("{}: {}", what, remark));
    }
}

RMQ_DECL void RemotingCaller::throw_first_failure(const Results& results, std::string_view what) {
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

}  // namespace rmq::detail
