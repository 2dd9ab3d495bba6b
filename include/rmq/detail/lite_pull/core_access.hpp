#pragma once

/// @file detail/lite_pull/core_access.hpp
/// rmq::detail::CoreAccess: the boxes of a push consumer's core that rmq::LitePullConsumer's engine drives
/// directly (the state, the offset committer, the puller, the rebalancer, the Service), and nothing else
/// reaches.

namespace rmq::detail {

struct CoreAccess {
    template <class Core>
    static auto& state(Core& core) noexcept {
        return core.s_;
    }

    template <class Core>
    static auto& committer(Core& core) noexcept {
        return core.committer_;
    }

    template <class Core>
    static auto& puller(Core& core) noexcept {
        return core.puller_;
    }

    template <class Core>
    static auto& rebalancer(Core& core) noexcept {
        return core.rebalancer_;
    }

    template <class Core>
    static auto& service(Core& core) noexcept {
        return core.service_;
    }
};

}  // namespace rmq::detail
