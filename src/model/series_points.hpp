#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "model/result.hpp"

namespace benchwatch::model {

// Puts `value`, measured at `point`, into a series whose points are kept in order
// (`points`, ascending by `place_of(point)`, with `values` parallel): among the others, or where
// the series holds a value at that point already, as the better of the two, the way the attempts
// of one commit are combined. `place` is place_of(point).
template <class Point, class PlaceOf>
void place_value(std::vector<Point>& points, std::vector<double>& values, Point point,
                 std::size_t place, double value, Direction direction, PlaceOf place_of) {
    const auto at = std::lower_bound(
        points.begin(), points.end(), place,
        [&](const Point& existing, std::size_t wanted) { return place_of(existing) < wanted; });
    const auto offset = at - points.begin();
    if (at != points.end() && *at == point) {
        double& kept = values[static_cast<std::size_t>(offset)];
        if (worse(direction, kept / value)) kept = value;
    } else {
        points.insert(at, std::move(point));
        values.insert(values.begin() + offset, value);
    }
}

}  // namespace benchwatch::model
