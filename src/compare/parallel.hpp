#pragma once

// Internal to the compare layer: work spread over the machine's cores where a calibration repeats
// the same computation for every replayed pull request.

#include <cstddef>
#include <functional>

namespace benchwatch::compare::detail {

// Calls work(i) once for every i in [0, count), on this thread and up to one more per core
// beyond the first (at most 8 in all); returns when all are done, rethrowing the first exception
// any call threw. Each call must write only what belongs to its own i, so that results gathered
// in index order afterwards are the same however the calls were spread.
void for_each_index(std::size_t count, const std::function<void(std::size_t)>& work);

}  // namespace benchwatch::compare::detail
