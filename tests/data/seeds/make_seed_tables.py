#!/usr/bin/env python3
"""Turns a seed report (a GitHub page rendered as text) into the golden Markdown report and a
table of baseline, head and typical change per benchmark that makes benchwatch write exactly that
report.

Usage: make_seed_tables.py SEED.txt NAME OUTPUT_DIR
Writes OUTPUT_DIR/NAME.md and OUTPUT_DIR/NAME.tsv. Standard library only; deterministic.

The seed shows every number rounded, so the real values are searched inside the rounding
intervals: the 3-digit times of baseline and head, the one-decimal change, and the one-decimal
geometric mean of each category. Every value is then checked again from the written text, also
nudged by a relative 1e-7 either way, so that float rounding in benchwatch cannot flip a digit.
"""

import math
import re
import sys
from dataclasses import dataclass, field

MINUS = "\u2212"
TIME_UNITS = (("ns", 1.0), ("µs", 1e3), ("ms", 1e6), ("s", 1e9))
# Name prefixes of the categories in the seeds (benchwatch's defaults), and their minimums.
CATEGORY_PREFIX = {"Performance": "", "Latency": "latency/", "Applications": "integration/"}
CATEGORY_MINIMUM = {"Performance": 0.03, "Latency": 0.05, "Applications": 0.03}
# Typical change of benchmarks whose verdict rests on the category minimum or a big change.
QUIET_TYPICAL_CHANGE = 0.002
# Share of every rounding interval kept free at each end.
INTERVAL_MARGIN = 0.02
NUDGE = 1e-7

ROW = re.compile(
    r"^(?P<name>.+?)[ \t]+(?P<base>[\d.]+ (?:ns|µs|ms|s))[ \t]+(?P<head>[\d.]+ (?:ns|µs|ms|s))"
    r"[ \t]+(?P<change>[+\u2212]\d+\.\d%)(?:[ \t]+(?P<marker>🔴 slower|🟢 faster))?$"
)
SUMMARY_ROW = re.compile(
    r"^(?P<category>Performance|Latency|Applications|Other)[ \t]+(?P<mean>[+\u2212]\d+\.\d%)"
    r"[ \t]+(?P<slower>\d+)[ \t]+(?P<faster>\d+)[ \t]+(?P<compared>\d+)$"
)


@dataclass
class Row:
    category: str
    name: str  # as shown, without the category prefix
    base: str
    head: str
    change: str
    marker: str  # "", "🔴 slower" or "🟢 faster"

    @property
    def full_name(self):
        return CATEGORY_PREFIX[self.category] + self.name


@dataclass
class Seed:
    merge_base: str = ""
    environment_line: str = ""
    summary: list = field(default_factory=list)  # (category, mean, slower, faster, compared)
    unusual: list = field(default_factory=list)  # Rows, in the seed's order
    rows: list = field(default_factory=list)  # Rows of "All benchmarks"
    history_url: str = ""


def parse_seed(text):
    lines = [line.rstrip() for line in text.splitlines()]
    start = lines.index("Benchmark results")
    seed = Seed()
    section = None
    category = None
    for line in lines[start + 1 :]:
        stripped = line.strip()
        if match := re.fullmatch(r"Compared with ([0-9a-f]{9}), the merge base\.", stripped):
            seed.merge_base = match.group(1)
        elif stripped.startswith("The environment differs from the baseline's:"):
            seed.environment_line = stripped
        elif stripped.startswith("Geometric mean"):
            section = "summary"
        elif stripped == "All benchmarks":
            section = "all"
        elif re.fullmatch(r"Benchmark[ \t]+Baseline[ \t]+This PR[ \t]+Change", stripped):
            section = "unusual" if section == "summary" else section
        elif stripped.startswith("History: "):
            seed.history_url = stripped.removeprefix("History: ")
            break
        elif stripped in CATEGORY_PREFIX:
            category = stripped
        elif section == "summary" and (match := SUMMARY_ROW.match(stripped)):
            seed.summary.append(
                (match["category"], match["mean"], int(match["slower"]), int(match["faster"]),
                 int(match["compared"]))
            )
        elif section in ("unusual", "all") and (match := ROW.match(stripped)):
            row = Row(category, match["name"], match["base"], match["head"], match["change"],
                      match["marker"] or "")
            (seed.unusual if section == "unusual" else seed.rows).append(row)
    assert seed.merge_base and seed.history_url and seed.summary and seed.rows
    return seed


def markdown_row(row):
    change = f"{row.change} {row.marker}" if row.marker else row.change
    return f"| {row.name} | {row.base} | {row.head} | {change} |"


def benchmark_table(rows):
    lines = ["| Benchmark | Baseline | This PR | Change |", "|:--|--:|--:|--:|"]
    category = None
    for row in rows:
        if row.category != category:
            category = row.category
            lines.append(f"| **{category}** | | | |")
        lines.append(markdown_row(row))
    return lines


def render_markdown(seed):
    lines = ["## Benchmark results", "", f"Compared with {seed.merge_base}, the merge base."]
    if seed.environment_line:
        lines.append(seed.environment_line)
    lines += [
        "",
        "Times are the minimum time of every benchmark. A change is unusual when it exceeds both "
        "three times the benchmark's typical change between consecutive runs on the default "
        "branch and a minimum per category (performance 3%, latency 5%, applications 3%, other "
        "3%). A benchmark that starts or stops allocating is listed however few the allocations. "
        "A single run can still be a fluke, so rerun before drawing conclusions.",
        "",
        "| | Geometric mean | Unusual: slower | Unusual: faster | Compared |",
        "|:--|--:|--:|--:|--:|",
    ]
    for category, mean, slower, faster, compared in seed.summary:
        lines.append(f"| {category} | {mean} | {slower} | {faster} | {compared} |")
    if seed.unusual:
        lines += [""] + benchmark_table(seed.unusual)
    lines += ["", "<details><summary>All benchmarks</summary>", ""]
    lines += benchmark_table(seed.rows)
    lines += ["", "</details>", "", f"History: {seed.history_url}"]
    return "\n".join(lines) + "\n"


def format_time(nanoseconds):
    for index, (unit, scale) in enumerate(TIME_UNITS):
        rounded = float(f"{nanoseconds / scale:.3g}")
        if rounded < 1000 or index == len(TIME_UNITS) - 1:
            break
    decimals = 0 if rounded >= 100 else 1 if rounded >= 10 else 2
    return f"{rounded:.{decimals}f} {unit}"


def format_change(change):
    text = f"{abs(change) * 100:.1f}%"
    return (MINUS if change < 0 else "+") + text


def time_interval(text):
    """The nanoseconds that round to `text`, e.g. "4.86 µs" → (4855, 4865)."""
    digits, unit = text.split(" ")
    scale = dict(TIME_UNITS)[unit]
    half_step = 0.5 * 10.0 ** -len(digits.partition(".")[2])
    return ((float(digits) - half_step) * scale, (float(digits) + half_step) * scale)


def change_interval(text):
    """The changes head/base − 1 that format as `text`, e.g. "−0.0%" → (−0.0005, 0)."""
    negative = text.startswith(MINUS)
    magnitude = float(text[1:-1]) / 100
    low, high = max(magnitude - 0.0005, 0.0), magnitude + 0.0005
    return (-high, -low) if negative else (low, high)


def shrink(interval):
    low, high = interval
    margin = (high - low) * INTERVAL_MARGIN
    return (low + margin, high - margin)


def log_interval(interval, offset=0.0):
    return (math.log(offset + interval[0]), math.log(offset + interval[1]))


def round_significant(value, digits=7):
    decimals = max(0, digits - 1 - math.floor(math.log10(value)))
    return f"{round(value, decimals):.{decimals}f}"


@dataclass
class Choice:
    row: Row
    log_ratio_low: float
    log_ratio_high: float
    base_log: tuple
    head_log: tuple


def choices_of(rows):
    result = []
    for row in rows:
        base_log = log_interval(shrink(time_interval(row.base)))
        head_log = log_interval(shrink(time_interval(row.head)))
        ratio_log = log_interval(shrink(change_interval(row.change)), offset=1.0)
        low = max(ratio_log[0], head_log[0] - base_log[1])
        high = min(ratio_log[1], head_log[1] - base_log[0])
        assert low < high, f"{row.full_name}: no baseline and head show as in the seed"
        result.append(Choice(row, low, high, base_log, head_log))
    return result


def log_ratios(choices, position):
    return [c.log_ratio_low + position * (c.log_ratio_high - c.log_ratio_low) for c in choices]


def position_for_mean(choices, target_log_mean):
    """The common position inside every row's ratio interval whose mean log ratio is the
    target (bisection: the mean grows with the position from 0 to 1)."""
    low, high = 0.0, 1.0
    for _ in range(100):
        middle = (low + high) / 2
        if sum(log_ratios(choices, middle)) / len(choices) < target_log_mean:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def typical_change(row, log_ratio):
    """Small for rows the seed flags and for rows held by the category minimum alone; large
    enough that 3× it covers the change with room to spare for the other quiet rows."""
    minimum = math.log(1 + CATEGORY_MINIMUM[row.category])
    if row.marker or abs(log_ratio) < 0.8 * minimum:
        return QUIET_TYPICAL_CHANGE
    return math.ceil(abs(log_ratio) / 2 * 1e4) / 1e4


def choose_values(seed):
    """(row, base text, head text, typical change text) per benchmark, grouped by category."""
    table = []
    for category, mean, *_ in seed.summary:
        choices = choices_of([row for row in seed.rows if row.category == category])
        shown_low, shown_high = log_interval(shrink(change_interval(mean)), offset=1.0)
        reachable_low = sum(log_ratios(choices, 0.0)) / len(choices)
        reachable_high = sum(log_ratios(choices, 1.0)) / len(choices)
        low, high = max(shown_low, reachable_low), min(shown_high, reachable_high)
        assert low < high, f"{category}: no values give the geometric mean {mean}"
        position = position_for_mean(choices, (low + high) / 2)
        for choice, log_ratio in zip(choices, log_ratios(choices, position)):
            base_low = max(choice.base_log[0], choice.head_log[0] - log_ratio)
            base_high = min(choice.base_log[1], choice.head_log[1] - log_ratio)
            base = math.exp((base_low + base_high) / 2)
            head = base * math.exp(log_ratio)
            typical = typical_change(choice.row, log_ratio)
            table.append((choice.row, round_significant(base), round_significant(head),
                          f"{typical:.4f}"))
    return table


def stable(render, value):
    """render(value), checked to be the same for value nudged either way."""
    shown = render(value)
    assert render(value * (1 + NUDGE)) == shown and render(value * (1 - NUDGE)) == shown, (
        f"{value!r} is too close to a rounding boundary of {shown}")
    return shown


def check(seed, table):
    """Recomputes the report's numbers from the written text of the table."""
    assert len(table) == len(seed.rows)
    by_category = {}
    for row, base_text, head_text, typical_text in table:
        base, head, typical = float(base_text), float(head_text), float(typical_text)
        where = row.full_name
        assert stable(format_time, base) == row.base, where
        assert stable(format_time, head) == row.head, where
        assert format_change(head / base - 1) == row.change, where
        assert format_change((head / base) * (1 + NUDGE) - 1) == row.change, where
        assert format_change((head / base) * (1 - NUDGE) - 1) == row.change, where
        log_ratio = math.log(head / base)
        threshold = max(3 * typical, math.log(1 + CATEGORY_MINIMUM[row.category]))
        unusual = abs(log_ratio) > threshold
        assert not 0.8 < abs(log_ratio) / threshold < 1.25, f"{where}: too near the threshold"
        expected = {"": False, "🔴 slower": True, "🟢 faster": True}[row.marker]
        assert unusual == expected, f"{where}: unusual is {unusual}"
        if unusual:
            assert (log_ratio > 0) == (row.marker == "🔴 slower"), where
        by_category.setdefault(row.category, []).append((log_ratio, unusual))
    for category, mean, slower, faster, compared in seed.summary:
        entries = by_category[category]
        geometric_mean = math.exp(sum(log for log, _ in entries) / len(entries)) - 1
        assert format_change(geometric_mean) == mean, category
        assert format_change((1 + geometric_mean) * (1 + NUDGE) - 1) == mean, category
        assert format_change((1 + geometric_mean) * (1 - NUDGE) - 1) == mean, category
        assert sum(1 for log, unusual in entries if unusual and log > 0) == slower, category
        assert sum(1 for log, unusual in entries if unusual and log < 0) == faster, category
        assert len(entries) == compared, category
    flagged = [row.full_name for row in seed.rows if row.marker]
    assert sorted(flagged) == sorted(row.full_name for row in seed.unusual)
    sizes = [abs(math.log(float(h) / float(b))) for r in seed.unusual
             for row, b, h, _ in table if row.full_name == r.full_name]
    assert sizes == sorted(sizes, reverse=True), "the unusual table is not by size of change"


def main(arguments):
    if len(arguments) != 4:
        sys.exit("usage: make_seed_tables.py SEED.txt NAME OUTPUT_DIR")
    seed_path, name, output = arguments[1:]
    with open(seed_path, encoding="utf-8") as file:
        seed = parse_seed(file.read())
    table = choose_values(seed)
    check(seed, table)
    with open(f"{output}/{name}.md", "w", encoding="utf-8") as file:
        file.write(render_markdown(seed))
    with open(f"{output}/{name}.tsv", "w", encoding="utf-8") as file:
        file.write("# benchmark\tbaseline_ns\thead_ns\ttypical_change\n")
        for row, base, head, typical in table:
            file.write(f"{row.full_name}\t{base}\t{head}\t{typical}\n")


if __name__ == "__main__":
    main(sys.argv)
