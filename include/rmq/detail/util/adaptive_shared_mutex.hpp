#pragma once

/// @file detail/util/adaptive_shared_mutex.hpp
/// rmq::detail::AdaptiveSharedMutex: a reader/writer lock that tries for a moment before it sleeps.
///
/// Why: the ProcessQueue lock is held for a map look-up or erase (well under a microsecond), but with batch
/// size 1 every listener call takes it twice, from many consume threads at once. glibc's rwlock puts a
/// contended thread to sleep at once, so most of those short waits became two context switches (about two
/// thirds of all switches in the in-process benchmark). Retrying a few dozen times first, as glibc's
/// "adaptive" mutexes and Java's lock spinning do, gets the lock while its holder is still running on
/// another core; a holder that was preempted still costs only one short spin before the usual sleep.

#include <shared_mutex>

namespace rmq::detail {

/// Satisfies Lockable and SharedLockable (usable with std::unique_lock and std::shared_lock).
class AdaptiveSharedMutex {
public:
    /// try_lock attempts before a blocking lock.
    static constexpr int spin_tries = 64;

    void lock() {
        if (!spin([this] { return mutex_.try_lock(); })) {
            mutex_.lock();
        }
    }

    [[nodiscard]] bool try_lock() { return mutex_.try_lock(); }

    void unlock() { mutex_.unlock(); }

    void lock_shared() {
        if (!spin([this] { return mutex_.try_lock_shared(); })) {
            mutex_.lock_shared();
        }
    }

    [[nodiscard]] bool try_lock_shared() { return mutex_.try_lock_shared(); }

    void unlock_shared() { mutex_.unlock_shared(); }

private:
    // Up to spin_tries attempts; true when one succeeded.
    template <class TryOnce>
    static bool spin(TryOnce try_once) {
        for (int i = 0; i < spin_tries; ++i) {
            if (try_once()) {
                return true;
            }
            relax();
        }
        return false;
    }

    // A CPU hint that this is a spin-wait loop (lets the sibling hyper-thread run, saves power).
    static void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        asm volatile("yield" ::: "memory");
#endif
    }

    std::shared_mutex mutex_;
};

}  // namespace rmq::detail
