"""A tiny pytest-benchmark suite whose JSON output is the fixture of the pytest-benchmark reader."""
import pytest


def test_sum_range(benchmark):
    assert benchmark(sum, range(100)) == 4950


def test_sorted_list(benchmark):
    numbers = list(range(50, 0, -1))
    assert benchmark(sorted, numbers)[0] == 1


@pytest.mark.parametrize("size", [10, 100])
def test_join_words(benchmark, size):
    words = ["word"] * size
    assert len(benchmark(" ".join, words)) == 5 * size - 1
