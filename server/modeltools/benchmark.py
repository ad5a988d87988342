"""Latency of a .mnn model: a plain timed ``runSession`` loop, then an optional per-op pass.

The latency figures come only from plain runs (``perf_counter`` around ``runSession``) after a
warm-up; the per-op table comes from separate runs with op callbacks, so profiling never skews
the headline numbers. MNN has no per-op profiler in Python: each op is timed between its
``before`` and ``after`` callbacks.
"""

import time
from pathlib import Path
from typing import Any

import numpy as np

from device_bridge import backends
from server.modeltools import real_inputs, tensors
from server.modeltools.progress import report
from server.modeltools.schemas import BenchmarkArgs

HISTOGRAM_BINS = 20
OUTSIDE_OPS = "(outside ops)"


def session_config(args: BenchmarkArgs) -> dict[str, Any]:
    """MNN's session config for the benchmark's backend, threads, precision, power and memory."""
    return backends.session_config(args.backend, args.threads, args.precision, args.power, args.memory)


def timed_loop(loaded: tensors.Loaded, loops: int) -> list[float]:
    """Milliseconds of each of ``loops`` plain runs."""
    net, session = loaded.net, loaded.session
    times = []
    for index in range(loops):
        start = time.perf_counter()
        net.runSession(session)
        times.append((time.perf_counter() - start) * 1000.0)
        if index % 50 == 49:
            report(0.1 + 0.6 * (index + 1) / loops, "timing")
    return times


def latency_stats(times: list[float]) -> dict[str, Any]:
    values = np.asarray(times)
    counts, edges = np.histogram(values, bins=min(HISTOGRAM_BINS, max(1, len(times))))
    return {
        "min_ms": float(values.min()),
        "median_ms": float(np.median(values)),
        "mean_ms": float(values.mean()),
        "p90_ms": float(np.percentile(values, 90)),
        "p99_ms": float(np.percentile(values, 99)),
        "max_ms": float(values.max()),
        "histogram": {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]},
    }


class OpTimer:
    """Accumulates per-op time between the ``before`` and ``after`` callbacks of each op."""

    def __init__(self) -> None:
        self.ops: dict[str, dict[str, Any]] = {}
        self.run_seconds = 0.0
        self._started = 0.0

    def before(self, _tensors: Any, _info: Any) -> bool:
        self._started = time.perf_counter()
        return True

    def after(self, _tensors: Any, info: Any) -> bool:
        elapsed = time.perf_counter() - self._started
        name = info.getName()
        op = self.ops.get(name)
        if op is None:
            op = self.ops[name] = {
                "name": name,
                "type": info.getType(),
                "mflops": float(info.getFlops()),
                "seconds": [],
            }
        op["seconds"].append(elapsed)
        self.run_seconds += elapsed
        return True


def per_op_table(loaded: tensors.Loaded, loops: int) -> dict[str, Any]:
    timer = OpTimer()
    totals, coverage = [], []
    for _ in range(loops):
        timer.run_seconds = 0.0
        start = time.perf_counter()
        loaded.net.runSessionWithCallBackInfo(loaded.session, timer.before, timer.after)
        total = time.perf_counter() - start
        totals.append(total * 1000.0)
        coverage.append(timer.run_seconds / total)
    # Medians per op, so a run disturbed by another process does not skew the table.
    medians = {name: float(np.median(op["seconds"])) * 1000.0 for name, op in timer.ops.items()}
    op_sum = sum(medians.values())
    # What a run spends between ops (MNN's scheduling, layout copies, the callbacks) is a row of
    # its own, so the table adds up to the run's time.
    outside = max(0.0, float(np.median(totals)) - op_sum)
    whole = op_sum + outside
    rows = [
        {"name": op["name"], "type": op["type"], "ms": medians[op["name"]], "mflops": op["mflops"]}
        for op in timer.ops.values()
    ]
    rows.append({"name": OUTSIDE_OPS, "type": "Outside ops", "ms": outside, "mflops": 0.0})
    for row in rows:
        row["percent"] = 100.0 * row["ms"] / whole if whole else 0.0
    rows.sort(key=lambda row: row["ms"], reverse=True)
    return {
        "ops": rows,
        "op_total_ms": op_sum,
        "outside_ops_ms": outside,
        "profiled_median_ms": float(np.median(totals)),
        # Share of each profiled run spent inside ops (the rest is callbacks and scheduling).
        "op_coverage": float(np.median(coverage)),
        "per_op_loops": loops,
    }


def run(args: BenchmarkArgs) -> dict[str, Any]:
    loaded = tensors.load_on(args.model, args, args.memory)
    runtime = tensors.runtime_record(args)
    declared = tensors.declared(loaded)
    files = real_inputs.load(Path(args.model), args.inputs, declared, args.input_shapes)
    sizes = tensors.run_shapes(declared, args.input_shapes, exempt=tuple(files))
    values = {**tensors.random_inputs(loaded, 0, sizes), **files}
    sizes.update({name: list(value.shape) for name, value in files.items()})
    tensors.feed(loaded, values)
    report(0.05, "warm-up")
    for _ in range(args.warmup):
        loaded.net.runSession(loaded.session)
    result: dict[str, Any] = {
        "runtime": runtime,
        "config": {**runtime, "memory": args.memory, "warmup": args.warmup, "loops": args.loops},
        **latency_stats(timed_loop(loaded, args.loops)),
        "mflops": float(loaded.net.getSessionInfo(loaded.session, 1)),
        "memory_mb": float(loaded.net.getSessionInfo(loaded.session, 0)),
        "input_shapes": sizes,
        "inputs": [{"name": n, "source": "file", "file": Path(f).name}
                   for n, f in (args.inputs or {}).items()],
        "output_shapes": {name: list(t.getShape()) for name, t in sorted(loaded.outputs().items())},
        "ops": [],
    }
    if args.per_op:
        report(0.75, "per-op profile")
        result.update(per_op_table(loaded, args.per_op_loops))
    return result
