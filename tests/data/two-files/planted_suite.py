"""A small pytest-benchmark suite with a planted slowdown: with PLANTED_SLOWDOWN=1,
test_sum_squares does 20% more work. Its pairs of files measure and test the two-file mode."""
import os

SCALE = 1.2 if os.environ.get("PLANTED_SLOWDOWN") == "1" else 1.0


def sum_squares(count):
    total = 0
    for i in range(count):
        total += i * i
    return total


def test_sum_squares(benchmark):
    count = int(20000 * SCALE)
    assert benchmark(sum_squares, count) == sum(i * i for i in range(count))


def test_sorted(benchmark):
    numbers = list(range(20000, 0, -1))
    assert benchmark(sorted, numbers)[0] == 1


def test_join(benchmark):
    words = [str(i) for i in range(20000)]
    assert len(benchmark(",".join, words)) > 20000


def test_dict(benchmark):
    assert len(benchmark(lambda: {i: i for i in range(20000)})) == 20000


def test_set(benchmark):
    numbers = list(range(20000))
    assert len(benchmark(set, numbers)) == 20000
