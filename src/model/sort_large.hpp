#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <utility>
#include <vector>

namespace benchwatch::model {

// Sorts `items` by `less` (not stably) as std::sort would, for items that are costly to move
// (a model::Result holds strings and optionals): their positions are sorted and each item is
// moved once, and a vector already in order is only checked.
template <class T, class Less>
void sort_large(std::vector<T>& items, Less less) {
    if (std::is_sorted(items.begin(), items.end(), less)) return;
    std::vector<std::size_t> order(items.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return less(items[a], items[b]); });
    std::vector<T> sorted;
    sorted.reserve(items.size());
    for (const auto position : order) sorted.push_back(std::move(items[position]));
    items = std::move(sorted);
}

}  // namespace benchwatch::model
