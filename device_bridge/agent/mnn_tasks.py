"""On-device MNN work in a child process: a benchmark with per-op times, tensor watchpoints or a
pipeline.

Run as ``python -m device_bridge.agent.mnn_tasks``; reads one JSON job line from stdin. MNN's
native code prints to the same stdout, so our lines carry the ``MNNWB_TASK `` prefix. A watch
waits after each hit for a ``continue`` or ``stop`` line on stdin. Native crashes stay here.
"""

import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from device_bridge import backends
from device_bridge.agent.tools import MARK
from device_bridge.runtime import feeds
from device_bridge.runtime import spec as model_spec

PROFILE_RUNS = 10


def emit(payload: dict[str, Any]) -> None:
    sys.stdout.write(MARK + json.dumps(payload) + "\n")
    sys.stdout.flush()


def open_session(model: str, config: dict[str, Any]) -> tuple[Any, Any]:
    import MNN

    net = MNN.Interpreter(model)
    return net, net.createSession(config)


def fill_inputs(net: Any, session: Any, job: dict[str, Any]) -> dict[str, Any]:
    """Each input at its shape (given, from its ``.npy`` or the model's spec; a dynamic dim is
    never guessed) with its value (a file preprocessed by the spec, ``.npy``, constant or
    random). Returns the shapes run and where each value came from, for the result."""
    import MNN

    model = Path(job["model"])
    spec = model_spec.load(model)
    rng = np.random.default_rng(0)
    given = job.get("input_shapes") or {}
    tensors = net.getSessionInputAll(session)
    unknown = sorted(set(given) - set(tensors))
    if unknown:
        raise feeds.FeedError(feeds.MISMATCH, f"input_shapes names {unknown[0]!r}, which the model "
                              f"does not have; its inputs are {sorted(tensors)}", unknown[0])
    values = {
        name: feeds.feed(name, list(tensor.getShape()), job["inputs"].get(name) or {},
                         given.get(name), spec, Path.cwd(), rng)  # the session's folder
        for name, tensor in tensors.items()
    }
    if any(list(tensors[name].getShape()) != list(v.value.shape) for name, v in values.items()):
        for name, tensor in tensors.items():
            net.resizeTensor(tensor, tuple(values[name].value.shape))
        net.resizeSession(session)
        tensors = net.getSessionInputAll(session)
    for name, tensor in tensors.items():
        value = values[name].value.astype(np.float32)
        host = MNN.Tensor(value.shape, MNN.Halide_Type_Float, value, MNN.Tensor_DimensionType_Caffe)
        tensor.copyFrom(host)
    return {"input_shapes": {name: list(v.value.shape) for name, v in values.items()},
            "inputs": {name: v.source for name, v in values.items()}}


def percentile(sorted_ms: list[float], q: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, round(q * (len(sorted_ms) - 1)))]


class Refused(Exception):
    """A benchmark asked for something this device cannot do; the message says what."""


def bench_config(job: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The backend's name and the session config for a ``bench.start``."""
    backend = backends.canonical(job["backend"])
    if backend is None:
        raise Refused(f"unknown backend {job['backend']!r}: one of {', '.join(backends.NAMES)}")
    if job["precision"] not in backends.PRECISION or job["power"] not in backends.POWER:
        raise Refused(f"unknown precision {job['precision']!r} or power {job['power']!r}")
    memory = {index: name for name, index in backends.MEMORY.items()}.get(job["memory"], "normal")
    return backend, backends.session_config(backend, job["threads"], job["precision"],
                                            job["power"], memory)


def bench(job: dict[str, Any]) -> dict[str, Any]:
    try:
        backend, config = bench_config(job)
    except Refused as exc:
        return {"ok": False, "error": str(exc)}
    net, session = open_session(job["model"], config)
    got = backends.used(net, session, backend)
    if got != backend:
        # MNN runs a backend it lacks on the CPU without a word: that is not what was asked for.
        import MNN

        why = backends.platform_reason(backend) or backends.unavailable(backend, MNN.version())
        return {"ok": False, "error": f"backend_unavailable: {backend} on this device: {why}"}
    fed = fill_inputs(net, session, job)
    for _ in range(job["warmup"]):
        net.runSession(session)
    times = []
    for _ in range(job["loops"]):
        start = time.perf_counter()
        net.runSession(session)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    result = {
        "ok": True, "loops": job["loops"], "min_ms": times[0],
        "median_ms": statistics.median(times),
        "p90_ms": percentile(times, 0.9), "p99_ms": percentile(times, 0.99),
        "mean_ms": statistics.fmean(times),
        "memory_mb": float(net.getSessionInfo(session, 0)),
        "ops": profile_ops(net, session) if job["per_op"] else [],
        "backend": got, "threads": job["threads"], "precision": job["precision"],
        "power": job["power"], **fed,
    }
    return result


def profile_ops(net: Any, session: Any) -> list[dict[str, Any]]:
    """Time each op in the callbacks (MNN's Python API has no profiler), averaged over runs."""
    totals: dict[str, list[Any]] = {}
    started: list[float] = [0.0]

    def before(_tensors: Any, _info: Any) -> bool:
        started[0] = time.perf_counter()
        return True

    def after(_tensors: Any, info: Any) -> bool:
        elapsed = (time.perf_counter() - started[0]) * 1000
        entry = totals.setdefault(info.getName(), [info.getType(), 0.0, info.getFlops()])
        entry[1] += elapsed
        return True

    for _ in range(PROFILE_RUNS):
        net.runSessionWithCallBackInfo(session, before, after)
    whole = sum(entry[1] for entry in totals.values()) or 1.0
    ops = [
        {"name": name, "type": kind, "ms": total / PROFILE_RUNS,
         "percent": 100 * total / whole, "mflops": float(flops)}
        for name, (kind, total, flops) in totals.items()
    ]
    return sorted(ops, key=lambda op: op["ms"], reverse=True)


def describe(tensor: Any, bins: int, sample: int) -> dict[str, Any]:
    """Shape, stats, histogram and a sample of a float tensor (others: shape only — copying an
    int8 tensor into a host tensor can double-free inside MNN)."""
    import MNN

    shape = list(tensor.getShape())
    if tensor.getDataType() != MNN.Halide_Type_Float or 0 in shape:
        return {"shape": shape, "stats": None, "histogram": None, "sample": []}
    host = MNN.Tensor(shape, MNN.Halide_Type_Float, np.zeros(shape, np.float32),
                      MNN.Tensor_DimensionType_Caffe)
    tensor.copyToHostTensor(host)
    values = np.asarray(host.getNumpyData(), dtype=np.float64).ravel()
    counts, edges = np.histogram(values[np.isfinite(values)], bins=bins)
    stats = {"min": float(values.min()), "max": float(values.max()),
             "mean": float(values.mean()), "std": float(values.std())}
    histogram = {"edges": edges.tolist(), "counts": counts.tolist()}
    return {"shape": shape, "stats": stats, "histogram": histogram,
            "sample": values[:sample].tolist()}


def watch(job: dict[str, Any]) -> dict[str, Any]:
    net, session = open_session(job["model"], {"numThread": 1})
    fill_inputs(net, session, job)
    wanted = set(job["ops"])
    hits = [0]

    def before(_tensors: Any, _info: Any) -> bool:
        return True

    def after(tensors: Any, info: Any) -> bool:
        if wanted and info.getName() not in wanted:
            return True
        for index, tensor in enumerate(tensors):
            hits[0] += 1
            emit({"hit": {"op": info.getName(), "op_type": info.getType(), "index": index,
                          **describe(tensor, job["bins"], job["sample"])}})
            if sys.stdin.readline().strip() != "continue":
                return False
        return True

    net.runSessionWithCallBackInfo(session, before, after)
    return {"ok": True, "hits": hits[0]}


def _stop_line() -> threading.Event:
    """Set once a ``stop`` line arrives on stdin (the agent's ``pipeline.stop``)."""
    stopped = threading.Event()

    def read() -> None:
        for line in sys.stdin:
            if line.strip() == "stop":
                stopped.set()
                return

    threading.Thread(target=read, daemon=True).start()
    return stopped


def pipeline(job: dict[str, Any]) -> dict[str, Any]:
    """A pipeline on the session's files, as the server's ``pipeline`` tool run answers it; a
    ``stop`` line ends it between inputs (or stages), with what was done. Each input's start is
    a ``progress`` line (the agent logs it)."""
    from device_bridge.runtime import pipeline_batch
    from device_bridge.runtime.pipeline_spec import PipelineError

    stopped = _stop_line()
    try:
        result = pipeline_batch.run_batch(Path(job["pipeline"]), [Path(i) for i in job["inputs"]],
                                          Path.cwd(), job["variants"],
                                          lambda _fraction, text: emit({"progress": text}), stopped.is_set)
    except pipeline_batch.InputFailed as exc:
        return {"ok": False, "error": str(exc), "code": "pipeline_failed", "where": exc.where}
    except PipelineError as exc:
        return {"ok": False, "error": f"pipeline: {exc}", "code": "bad_pipeline", "where": exc.where}
    except pipeline_batch.NoImage as exc:
        return {"ok": False, "error": str(exc), "code": "bad_input_file"}
    return {"ok": True, "result": result}


TASKS = {"bench.start": bench, "watch.start": watch, "pipeline.start": pipeline}


def main() -> None:
    job = json.loads(sys.stdin.readline())
    try:
        emit({"result": TASKS[job["type"]](job)})
    except feeds.FeedError as exc:  # the run cannot feed an input: named, with the input
        emit({"result": {"ok": False, "error": str(exc), "code": exc.code, "input": exc.input}})
    except model_spec.SpecError as exc:
        emit({"result": {"ok": False, "error": f"the model's spec: {exc}", "code": "spec_invalid"}})
    except Exception as exc:  # noqa: BLE001 - any failure becomes the task's error result
        emit({"result": {"ok": False, "error": f"{type(exc).__name__}: {exc}"}})


if __name__ == "__main__":
    main()
