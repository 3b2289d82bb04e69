#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace benchwatch::stats {

// A sorted set of finite numbers that answers "how many lie above x" in about constant time: the
// range from the smallest to the largest is cut into equal buckets, each knowing where its
// numbers start, so that a query searches one bucket rather than the whole set. The answers are
// exactly those of std::upper_bound over the sorted numbers. A calibration asks this millions of
// times of hundreds of thousands of pooled scores, where a binary search's cache misses dominate.
class SortedCounts {
  public:
    SortedCounts() = default;
    // Of `values` (any order, every one finite).
    explicit SortedCounts(std::vector<double> values);

    // How many of the numbers are greater than `bound`.
    std::size_t count_above(double bound) const;

    std::size_t size() const { return sorted_.size(); }
    std::span<const double> sorted() const { return sorted_; }

  private:
    std::size_t bucket_of(double value) const;

    std::vector<double> sorted_;
    std::vector<std::size_t> bucket_start_;  // first index of each bucket, then sorted_.size()
    double lowest_ = 0;
    double scale_ = 0;  // buckets per unit of value
};

}  // namespace benchwatch::stats
