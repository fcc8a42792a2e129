#!/usr/bin/env python3
"""Host instructions per submission, halo beside the native API.

Runs each named benchmark of a halo-bench-* program alone under valgrind's
callgrind. The benchmarks mark their timed stretch (instruction_count.hpp):
callgrind's counters are zeroed when it starts and dumped, for every thread
of the process, when it ends, labelled with the submissions it made. This
script sums the dumps of each benchmark, divides by the submissions, and
attributes the instructions to the shared object that executed them
(libhalo, the plugin, the native driver, libc ...). It also counts the
native API calls each submission makes through the loader (OpenCL's, where
every call goes through it), so that each side's calls compare by name.

Instruction counts do not drift with the machine's load the way wall time
does: two runs give figures within about 2 % of each other (threads
interleave differently, so spinning loops spin a little more or less).
Valgrind runs one thread at a time, so spinning loops count what they spun:
a count includes any busy-waiting either side does while the other thread
works, and is the host work of the pair, not of the caller alone.

Usage:
  bench/count_instructions.py BENCH_BINARY BENCHMARK_PREFIX... [--top N]
                              [--min-time SECONDS]

  BENCHMARK_PREFIX is a benchmark name without its side, e.g. BM_VkChain10k;
  both its native and its halo variant are run.
"""

import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

LABEL = re.compile(r"^desc: Trigger: Client Request: submissions=(\d+)$")
# A native API call: a call from outside the loader into one of its
# exported entry points (libOpenCL's clEnqueueFillBuffer), named as the
# application calls it. The drivers' own entry points are unnamed (lavapipe
# and PoCL ship stripped), and Vulkan device functions go to the driver
# without the loader, so Vulkan shows only its loader-level calls.
ENTRY = re.compile(r"^(cl|vk)[A-Z]\w*$")
LOADER = re.compile(r"(libOpenCL|libvulkan)[^/]*$")


def parse_dump(path, object_names, function_names):
    """Returns (submissions, total Ir, {object: self Ir}, {API call:
    calls}) of one dump, or None when the dump is not a marked stretch."""
    submissions = None
    total = 0
    per_object = collections.Counter()
    api_calls = collections.Counter()
    current_object = "?"
    callee_object = None
    callee = "?"
    callee_in = "?"
    skip_next_cost = False

    def resolve(value, names):
        match = re.match(r"\((\d+)\)(?: (.*))?$", value)
        if not match:
            return value
        if match.group(2) is not None:
            names[match.group(1)] = match.group(2)
        return names.get(match.group(1), "?")

    with open(path, encoding="utf-8", errors="replace") as dump:
        for line in dump:
            line = line.rstrip("\n")
            label = LABEL.match(line)
            if label:
                submissions = int(label.group(1))
            elif line.startswith("summary:"):
                total = int(line.split()[1])
            elif line.startswith("ob="):
                current_object = resolve(line[3:], object_names)
            elif line.startswith("cob="):
                # The called function's object, for the next cfn= only.
                callee_object = resolve(line[4:], object_names)
            elif line.startswith("fn="):
                resolve(line[3:], function_names)
            elif line.startswith("cfn="):
                callee = resolve(line[4:], function_names)
                callee_in = callee_object or current_object
                callee_object = None
            elif line.startswith("calls="):
                skip_next_cost = True
                if (ENTRY.match(callee) and LOADER.search(callee_in) and
                        callee_in != current_object):
                    api_calls[callee] += int(line[6:].split()[0])
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                if skip_next_cost:
                    skip_next_cost = False  # the callee's inclusive cost
                    continue
                per_object[current_object] += int(line.split()[-1])
    if submissions is None:
        return None
    return submissions, total, per_object, api_calls


def measure(binary, benchmark, workdir, min_time):
    prefix = os.path.join(workdir, re.sub(r"[^A-Za-z0-9]+", "_", benchmark))
    command = [
        "valgrind", "--tool=callgrind", "--quiet",
        "--callgrind-out-file=" + prefix + ".%p",
        binary, "--benchmark_filter=^" + re.escape(benchmark) + "$",
        "--benchmark_min_time=" + min_time,
    ]
    run = subprocess.run(command, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        sys.exit(f"{benchmark}: exit {run.returncode}\n{run.stdout}")
    # Google Benchmark calls a benchmark with growing iteration counts
    # until one run is long enough; the longest run is the steady state
    # (the short ones carry first-use costs and background work the driver
    # started earlier).
    # Names are compressed across the dumps of one process: a name first
    # written in one dump is only referred to in the later ones.
    def dump_order(path):
        return [int(part) if part.isdigit() else 0
                for part in path[len(prefix) + 1:].split(".")]
    object_names, function_names = {}, {}
    dumps = [parse_dump(path, object_names, function_names)
             for path in sorted(glob.glob(prefix + ".*"), key=dump_order)]
    dumps = [dump for dump in dumps if dump]
    if not dumps:
        sys.exit(f"{benchmark}: no marked stretch was dumped "
                 "(built without valgrind's headers?)")
    return max(dumps, key=lambda dump: dump[0])


def short_object(path):
    name = os.path.basename(path)
    return re.sub(r"\.so[.0-9]*$", ".so", name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("benchmarks", nargs="+")
    parser.add_argument("--top", type=int, default=6,
                        help="objects listed per side (default 6)")
    parser.add_argument("--min-time", default="1",
                        help="--benchmark_min_time of each run, in seconds "
                        "of valgrind's slowed time (default 1)")
    args = parser.parse_args()
    sides = ["native_vulkan", "native_opencl", "native_cuda", "halo"]
    listed = subprocess.run([args.binary, "--benchmark_list_tests"],
                            stdout=subprocess.PIPE, text=True).stdout.split()
    with tempfile.TemporaryDirectory() as workdir:
        print("| benchmark | side | submissions counted | Ir / submission "
              "| halo / native |")
        print("|---|---|---:|---:|---:|")
        breakdowns = []
        for prefix in args.benchmarks:
            native = None
            for side in sides:
                name = next((n for n in listed
                             if n.startswith(f"{prefix}/{side}/")), None)
                if not name:
                    continue
                submissions, total, per_object, api_calls = measure(
                    args.binary, name, workdir, args.min_time)
                per_submission = total / submissions
                ratio = ""
                if side == "halo" and native:
                    ratio = f"{per_submission / native:.2f}×"
                else:
                    native = per_submission
                print(f"| {prefix} | {side} | {submissions:,} | "
                      f"{per_submission:,.0f} | {ratio} |")
                breakdowns.append(
                    (prefix, side, submissions, per_object, api_calls))
        print()
        print("Where the instructions go (Ir per submission, by object):")
        print()
        for prefix, side, submissions, per_object, _ in breakdowns:
            merged = collections.Counter()
            for path, cost in per_object.items():
                merged[short_object(path)] += cost
            top = ", ".join(f"{name} {cost / submissions:,.0f}"
                            for name, cost in merged.most_common(args.top))
            print(f"- {prefix} {side}: {top}")
        print()
        print("Native API calls per submission (through the loader):")
        print()
        for prefix, side, submissions, _, api_calls in breakdowns:
            calls = ", ".join(f"{name} {count / submissions:.2f}"
                              for name, count in api_calls.most_common()
                              if count / submissions >= 0.01)
            total = sum(api_calls.values()) / submissions
            print(f"- {prefix} {side}: {total:.2f} in all: {calls}")


if __name__ == "__main__":
    main()
