#!/usr/bin/env python3
"""Turns Google Benchmark JSON output into the halo-vs-native Markdown table.

Usage: compare.py [--time=auto|real|cpu] RESULTS.json [MORE.json ...]

Benchmarks are named FAMILY/VARIANT[/real_time...]; in each family the variant
"halo" is compared with every other variant (the native baselines). The time
is, by default (auto), the wall-clock time of benchmarks registered with
UseRealTime (their names end in /real_time: the multi-threaded ping-pong,
whose timed thread sleeps) or UseManualTime (/manual_time: the
per-iteration wall-clock time a body measured itself) and the CPU time of
the others (single-threaded
fast paths, where CPU time leaves out the moments a shared machine takes the
core away). For each benchmark the median is taken over the repetitions; the
spread is
the coefficient of variation (stddev/mean) and, when the JSON holds every
repetition (run without --benchmark_report_aggregates_only), the range
(max - min) / median as well. The ratio is halo median / native median.

Only the Python standard library is used.
"""

import json
import statistics
import sys

# ns per unit of Google Benchmark's time_unit field.
_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}

# The goals of the issue: (family, baseline variant, largest halo/native).
_GOALS = [
    ("BM_PingPong", "native_futex", 1.5),
    ("BM_Query", "native_atomic", 5.0),
    ("BM_PollWaitReached", "native_atomic", 5.0),
    ("BM_PollWaitNotReached", "native_atomic", 5.0),
    # "At least 0.9x the native bandwidth" is at most 1/0.9 the native time.
    ("BM_Fill64MiB", "native_memset", 1 / 0.9),
    ("BM_Copy64MiB", "native_memcpy", 1 / 0.9),
    ("BM_EmptyDispatch", "native_futex_handoff", 2.0),
    ("BM_Saxpy16M", "native_threads", 1 / 0.9),
    # halo-bench-order: independent dispatches without barriers no slower
    # than with a barrier between each two.
    ("BM_Independent256Buffers", "barrier_between", 1.0),
    ("BM_Independent256Ranges", "barrier_between", 1.0),
    # halo-bench-vulkan: a host-signalled wait against raw Vulkan that also
    # queues the work only on the signal (the price of DESIGN.md §5 shows
    # against native_vulkan, which queues it first).
    ("BM_VkHostSignalWake", "native_vulkan_on_signal", 1.10),
]

# Goals that hold for every family with a given baseline variant: each
# halo-bench-vulkan figure within 1.10x of raw Vulkan on the same device, each
# halo-bench-opencl figure within 1.25x of raw OpenCL.
_VARIANT_GOALS = {
    "native_vulkan": 1.10,
    "native_opencl": 1.25,
}


class Series:
    """The figures of one benchmark (one run_name) across repetitions."""

    def __init__(self):
        self.samples = []  # per-repetition real time, ns
        self.aggregates = {}  # aggregate name -> time (ns, or a ratio)
        self.index = None  # registration order (family_index)

    def median(self):
        if self.samples:
            return statistics.median(self.samples)
        return self.aggregates.get("median")

    def cv(self):
        if len(self.samples) >= 2:
            mean = statistics.fmean(self.samples)
            return statistics.stdev(self.samples) / mean if mean else None
        if "cv" in self.aggregates:
            return self.aggregates["cv"]
        mean, stddev = self.aggregates.get("mean"), self.aggregates.get("stddev")
        if mean and stddev is not None:
            return stddev / mean
        return None

    def range_ratio(self):
        if len(self.samples) < 2:
            return None
        median = statistics.median(self.samples)
        return (max(self.samples) - min(self.samples)) / median if median else None

    def count(self):
        if self.samples:
            return len(self.samples)
        return None


def time_field(run_name, mode):
    """The JSON field holding the time to compare for |run_name|."""
    if mode == "real":
        return "real_time"
    if mode == "cpu":
        return "cpu_time"
    # Manual time is wall-clock time too, measured by the body per
    # iteration (the *SubmitLatency benchmarks); Google Benchmark reports it
    # as real_time.
    if "/real_time" in run_name or "/manual_time" in run_name:
        return "real_time"
    return "cpu_time"


def load(paths, mode):
    """Returns ({run_name: Series}, [run_name in registration order], context).

    Random interleaving shuffles the JSON; the registration order (native
    beside halo) is restored from family_index."""
    series, order, context = {}, [], {}
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        context = context or data.get("context", {})
        for entry in data.get("benchmarks", []):
            if entry.get("error_occurred"):
                continue
            name = entry.get("run_name", entry["name"])
            if name not in series:
                series[name] = Series()
                order.append(name)
            index = entry.get("family_index")
            if index is not None and (series[name].index is None
                                      or index < series[name].index):
                series[name].index = index
            scale = _UNIT_NS.get(entry.get("time_unit", "ns"), 1.0)
            field = time_field(name, mode)
            if entry.get("run_type") == "aggregate":
                aggregate = entry["aggregate_name"]
                # The cv aggregate is a ratio, not a time.
                unit = entry.get("aggregate_unit", "time")
                value = entry[field]
                series[name].aggregates[aggregate] = (
                    value if unit == "percentage" else value * scale)
            else:
                series[name].samples.append(entry[field] * scale)
    order.sort(key=lambda name: (series[name].index is None,
                                 series[name].index or 0))
    return series, order, context


def split_name(run_name):
    parts = run_name.split("/")
    return parts[0], (parts[1] if len(parts) > 1 else "")


def fmt_ns(value):
    if value is None:
        return "n/a"
    if value >= 100:
        return f"{value:,.0f} ns"
    if value >= 10:
        return f"{value:.1f} ns"
    return f"{value:.2f} ns"


def fmt_spread(item):
    cv, spread = item.cv(), item.range_ratio()
    text = "cv n/a" if cv is None else f"cv {cv * 100:.1f}%"
    if spread is not None:
        text += f", range {spread * 100:.1f}%"
    return text


def pairs(series, order):
    """Yields (family, baseline variant, native Series, halo Series)."""
    families = {}
    for name in order:
        family, variant = split_name(name)
        families.setdefault(family, []).append((variant, series[name]))
    for family, variants in families.items():
        halo = [item for variant, item in variants if variant == "halo"]
        if not halo:
            continue
        for variant, item in variants:
            if variant != "halo":
                yield family, variant, item, halo[0]


def main(argv):
    args = argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    mode = "auto"
    if args[0].startswith("--time="):
        mode = args.pop(0)[len("--time="):]
        if mode not in ("auto", "real", "cpu") or not args:
            print(__doc__.strip(), file=sys.stderr)
            return 2
    series, order, context = load(args, mode)
    rows = list(pairs(series, order))
    if not rows:
        print("compare.py: no FAMILY/halo beside FAMILY/<native> pair found",
              file=sys.stderr)
        return 1
    reps = {item.count() for _, _, a, b in rows for item in (a, b)} - {None}
    print(f"Host: {context.get('host_name', '?')}, "
          f"{context.get('num_cpus', '?')} CPUs at "
          f"{context.get('mhz_per_cpu', '?')} MHz, "
          f"libbenchmark built {context.get('library_build_type', '?')}; "
          f"pinning: {context.get('pinning', '?')}; "
          f"repetitions: {', '.join(map(str, sorted(reps))) or 'see JSON'}; "
          f"time: {mode}.")
    print()
    print("| benchmark | native baseline | native median | halo median "
          "| native spread | halo spread | halo / native |")
    print("|---|---|---:|---:|---|---|---:|")
    ratios = {}
    for family, variant, native, halo in rows:
        native_median, halo_median = native.median(), halo.median()
        ratio = (halo_median / native_median
                 if native_median and halo_median is not None else None)
        ratios[(family, variant)] = ratio
        ratio_text = "n/a" if ratio is None else f"{ratio:.2f}×"
        print(f"| {family} | {variant} | {fmt_ns(native_median)} "
              f"| {fmt_ns(halo_median)} | {fmt_spread(native)} "
              f"| {fmt_spread(halo)} | {ratio_text} |")
    goals = [(f, v, limit) for f, v, limit in _GOALS if (f, v) in ratios]
    goals += [(f, v, _VARIANT_GOALS[v]) for f, v in ratios
              if v in _VARIANT_GOALS]
    if goals:
        print()
        print("| goal | limit | measured | verdict |")
        print("|---|---:|---:|---|")
        for family, variant, limit in goals:
            ratio = ratios[(family, variant)]
            measured = "n/a" if ratio is None else f"{ratio:.2f}×"
            verdict = ("n/a" if ratio is None else
                       "met" if ratio <= limit else "**missed**")
            print(f"| {family} halo vs {variant} | ≤ {limit:.2f}× | {measured} "
                  f"| {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
