#include "stats/sorted_counts.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace benchwatch::stats {

SortedCounts::SortedCounts(std::vector<double> values) : sorted_(std::move(values)) {
    std::sort(sorted_.begin(), sorted_.end());
    if (sorted_.empty()) return;
    assert(std::isfinite(sorted_.front()) && std::isfinite(sorted_.back()));
    lowest_ = sorted_.front();
    const double range = sorted_.back() - lowest_;
    // About two numbers a bucket; a range too narrow (all equal) or too wide to divide gets one.
    const std::size_t buckets = std::max<std::size_t>(1, sorted_.size() / 2);
    scale_ = range > 0 && std::isfinite(range) ? static_cast<double>(buckets) / range : 0.0;
    if (!std::isfinite(scale_)) scale_ = 0;
    bucket_start_.assign(buckets + 1, sorted_.size());
    // bucket_of() never decreases as its value grows, so each bucket's numbers are contiguous.
    for (std::size_t i = sorted_.size(); i-- > 0;) bucket_start_[bucket_of(sorted_[i])] = i;
    for (std::size_t b = buckets; b-- > 0;)
        bucket_start_[b] = std::min(bucket_start_[b], bucket_start_[b + 1]);
}

std::size_t SortedCounts::bucket_of(double value) const {
    // Rounded subtraction and multiplication by a positive number never reverse an order, and
    // neither do floor and min: a larger value never lands in an earlier bucket.
    const double position = std::floor((value - lowest_) * scale_);
    const auto last = static_cast<double>(bucket_start_.size() - 2);
    return static_cast<std::size_t>(std::clamp(position, 0.0, last));
}

std::size_t SortedCounts::count_above(double bound) const {
    if (sorted_.empty() || !(bound < sorted_.back())) return 0;
    if (bound < lowest_) return sorted_.size();
    // A number in an earlier bucket than bound's is at most bound, one in a later bucket above it.
    const std::size_t bucket = bucket_of(bound);
    const auto first = sorted_.begin() + static_cast<std::ptrdiff_t>(bucket_start_[bucket]);
    const auto last = sorted_.begin() + static_cast<std::ptrdiff_t>(bucket_start_[bucket + 1]);
    return static_cast<std::size_t>(sorted_.end() - std::upper_bound(first, last, bound));
}

}  // namespace benchwatch::stats
