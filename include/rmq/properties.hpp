#pragma once

/// @file properties.hpp
/// rmq::Properties: a message's properties, name -> value, ordered by name and stored flat.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace rmq {

/// A message's properties (Java's `Map<String, String>`), ordered by name so that the encoding is
/// deterministic. Entries are kept in one sorted vector rather than one tree node each: a message is copied
/// into every pull result and gains up to three properties on its way to the listener, and a handful of
/// entries in one allocation is cheaper to copy, search and extend than a node per entry. Look-ups take a
/// `std::string_view` and never allocate. Reads like a `const std::map<std::string, std::string>` (iteration
/// in name order, find, contains, count, at, size, ==); a std::map converts to it.
class Properties {
public:
    using value_type = std::pair<std::string, std::string>;
    using container_type = std::vector<value_type>;
    using const_iterator = container_type::const_iterator;
    using iterator = const_iterator;
    using size_type = std::size_t;

    Properties() = default;

    Properties(const Properties&) = default;

    /// A copy with room for `room` more entries, allocated once (a consumer's copy of a pulled message, which
    /// it then stamps: rmq::MessageExt's copy with room).
    Properties(const Properties& other, size_type room) {
        entries_.reserve(other.entries_.size() + room);
        entries_.insert(entries_.end(), other.entries_.begin(), other.entries_.end());
    }

    Properties(Properties&&) noexcept = default;
    Properties& operator=(const Properties&) = default;
    Properties& operator=(Properties&&) noexcept = default;
    ~Properties() = default;

    /// As std::map's: of duplicate names, the first is kept.
    Properties(std::initializer_list<value_type> entries) {
        for (const auto& e : entries) {
            emplace(e.first, e.second);
        }
    }

    /// As std::map's: of duplicate names, the first is kept.
    template <class InputIt>
    Properties(InputIt first, InputIt last) {
        for (; first != last; ++first) {
            emplace(first->first, first->second);
        }
    }

    /// Properties were a std::map before they were flat; a map still converts.
    // NOLINTNEXTLINE(google-explicit-constructor)
    Properties(const std::map<std::string, std::string>& entries)
        : entries_(entries.begin(), entries.end()) {}

    /// A std::map copy, for code written against the map: `std::map<std::string, std::string> m(props);`.
    explicit operator std::map<std::string, std::string>() const {
        return {entries_.begin(), entries_.end()};
    }

    /// Takes entries in any order; of duplicate names the **last** wins (Java's decoding of a properties
    /// string, where a later entry overwrites an earlier one in the HashMap).
    [[nodiscard]] static Properties from_entries(container_type entries) {
        const auto less = [](const value_type& a, const value_type& b) {
            return name_less(a.first, b.first);
        };
        if (entries.size() <= small_sort_max) {
            insertion_sort(entries, less);  // stable too, and without stable_sort's buffer allocation
        } else {
            std::stable_sort(entries.begin(), entries.end(), less);
        }
        // Compacted in place, the last of equal names kept: the vector itself becomes the store.
        auto kept = entries.begin();
        for (auto it = entries.begin(); it != entries.end(); ++it) {
            if (kept != entries.begin() && std::prev(kept)->first == it->first) {
                std::prev(kept)->second = std::move(it->second);
            } else {
                if (kept != it) {
                    *kept = std::move(*it);
                }
                ++kept;
            }
        }
        entries.erase(kept, entries.end());
        Properties out;
        out.entries_ = std::move(entries);
        return out;
    }

    [[nodiscard]] const_iterator begin() const noexcept { return entries_.begin(); }

    [[nodiscard]] const_iterator end() const noexcept { return entries_.end(); }

    [[nodiscard]] const_iterator cbegin() const noexcept { return entries_.cbegin(); }

    [[nodiscard]] const_iterator cend() const noexcept { return entries_.cend(); }

    [[nodiscard]] size_type size() const noexcept { return entries_.size(); }

    [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }

    [[nodiscard]] const_iterator find(std::string_view name) const noexcept {
        const auto it = lower_bound(name);
        return it != entries_.end() && it->first == name ? it : entries_.end();
    }

    [[nodiscard]] bool contains(std::string_view name) const noexcept { return find(name) != end(); }

    [[nodiscard]] size_type count(std::string_view name) const noexcept { return contains(name) ? 1 : 0; }

    /// The value of `name`; std::out_of_range when absent, as std::map::at.
    [[nodiscard]] const std::string& at(std::string_view name) const {
        if (const auto it = find(name); it != end()) {
            return it->second;
        }
        throw std::out_of_range("rmq::Properties::at: no property named " + std::string(name));
    }

    /// Sets `name` to `value`; true when the name was new.
    bool insert_or_assign(std::string_view name, std::string_view value) {
        const auto [it, added] = place(name, value);
        if (!added) {
            it->second.assign(value);
        }
        return added;
    }

    /// Sets each `name` to its `value`, as insert_or_assign of each in turn. Names given in ascending order
    /// that are new go in with one pass over the vector (each entry after them moves once, not once per new
    /// name): how a consumer stamps MAX_OFFSET and MIN_OFFSET on every message.
    void insert_or_assign(std::initializer_list<std::pair<std::string_view, std::string_view>> entries) {
        std::size_t added = 0;
        const std::pair<std::string_view, std::string_view>* prev = nullptr;
        bool ascending = true;
        for (const auto& e : entries) {
            ascending = ascending && (prev == nullptr || name_less(prev->first, e.first));
            prev = &e;
            if (const auto it = lower_bound(e.first); it != entries_.end() && it->first == e.first) {
                it->second.assign(e.second);
            } else {
                ++added;
            }
        }
        if (added == 0) {
            return;
        }
        if (!ascending) {
            for (const auto& e : entries) {
                insert_or_assign(e.first, e.second);
            }
            return;
        }
        merge_new(entries, added);
    }

    /// Adds `name` unless present (then nothing changes); true when it was added.
    bool emplace(std::string_view name, std::string_view value) { return place(name, value).second; }

    /// Removes `name`; the number removed (0 or 1).
    size_type erase(std::string_view name) {
        const auto it = lower_bound(name);
        if (it == entries_.end() || it->first != name) {
            return 0;
        }
        entries_.erase(it);
        return 1;
    }

    /// Removes the entry at `pos`; the entry after it.
    const_iterator erase(const_iterator pos) { return entries_.erase(pos); }

    void clear() noexcept { entries_.clear(); }

    /// Room for `n` entries without a reallocation.
    void reserve(size_type n) { entries_.reserve(n); }

    /// Drops the room for more entries (the slack of a vector grown one entry at a time).
    void shrink_to_fit() { entries_.shrink_to_fit(); }

    friend bool operator==(const Properties&, const Properties&) = default;

    /// The order of names (std::string_view's). Written out because the library's compare() is not inlined by
    /// g++ 12 at -O3 and every look-up runs it a few times; most names differ in their first byte, which is
    /// compared before memcmp is called.
    [[nodiscard]] static bool name_less(std::string_view a, std::string_view b) noexcept {
        if (!a.empty() && !b.empty() && a.front() != b.front()) {
            return static_cast<unsigned char>(a.front()) < static_cast<unsigned char>(b.front());
        }
        const std::size_t n = std::min(a.size(), b.size());
        const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
        return c < 0 || (c == 0 && a.size() < b.size());
    }

private:
    // The decoder sorts and de-duplicates its entries itself and builds them here directly: from_entries
    // would check both again for every decoded message.
    friend Properties decode_properties(std::string_view text, std::size_t room);

    // A message's handful of properties sorts fastest by insertion (one decoded per message of a pull).
    static constexpr std::size_t small_sort_max = 32;

    template <class Less>
    static void insertion_sort(container_type& entries, Less less) {
        for (std::size_t i = 1; i < entries.size(); ++i) {
            if (!less(entries[i], entries[i - 1])) {
                continue;
            }
            value_type moving = std::move(entries[i]);
            std::size_t j = i;
            for (; j > 0 && less(moving, entries[j - 1]); --j) {
                entries[j] = std::move(entries[j - 1]);
            }
            entries[j] = std::move(moving);
        }
    }

    // The first entry not before `name`, for the const and the mutable vector alike.
    template <class Entries>
    [[nodiscard]] static auto lower_bound_in(Entries& entries, std::string_view name) noexcept {
        return std::lower_bound(
            entries.begin(), entries.end(), name, [](const value_type& e, std::string_view n) {
                return name_less(e.first, n);
            });
    }

    // The entry of `name`, inserted with `value` when absent; whether it was inserted.
    std::pair<container_type::iterator, bool> place(std::string_view name, std::string_view value) {
        const auto it = lower_bound(name);
        if (it != entries_.end() && it->first == name) {
            return {it, false};
        }
        // Built in place from the views: moving temporary strings into the entry made g++ 12 at -O2 report a
        // false -Warray-bounds (SSO copy inlined through char_traits) in code that calls set_property.
        return {entries_.emplace(
                    it, std::piecewise_construct, std::forward_as_tuple(name), std::forward_as_tuple(value)),
                true};
    }

    // Inserts the `added` names of `entries` (ascending) that are absent: the vector grows by `added` empty
    // entries, then is filled from the back, each old entry moved at most once.
    void merge_new(std::initializer_list<std::pair<std::string_view, std::string_view>> entries,
                   std::size_t added) {
        std::size_t old_end = entries_.size();
        entries_.resize(old_end + added);
        std::size_t write = entries_.size();
        for (auto e = std::rbegin(entries); e != std::rend(entries); ++e) {
            const auto& [name, value] = *e;
            while (old_end > 0 && !name_less(entries_[old_end - 1].first, name)) {
                if (entries_[old_end - 1].first == name) {
                    break;  // present (assigned by the caller): not one of the new names
                }
                --write;
                --old_end;
                if (write != old_end) {
                    entries_[write] = std::move(entries_[old_end]);
                }
            }
            if (old_end > 0 && entries_[old_end - 1].first == name) {
                continue;
            }
            --write;
            entries_[write].first.assign(name);
            entries_[write].second.assign(value);
        }
    }

    [[nodiscard]] container_type::iterator lower_bound(std::string_view name) noexcept {
        return lower_bound_in(entries_, name);
    }

    [[nodiscard]] const_iterator lower_bound(std::string_view name) const noexcept {
        return lower_bound_in(entries_, name);
    }

    container_type entries_;
};

}  // namespace rmq
