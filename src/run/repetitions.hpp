#pragma once

#include <vector>

#include "model/result.hpp"

namespace benchwatch::run {

// Adds one run of a harness, `repetition`, to `best`, what the earlier runs measured: each
// benchmark and metric keeps its best value (the smallest, or the largest for bigger-is-better
// metrics) with that run's other figures, and its samples become those of every run so far, so
// that three runs of a harness that repeats each benchmark once give three samples. Samples are
// pooled only while every run kept all of its values (see model::kKeptSampleValues); past that,
// the best run's summary stands. Benchmarks missing from some runs keep what they have.
void add_repetition(std::vector<model::Result>& best, std::vector<model::Result> repetition);

}  // namespace benchwatch::run
