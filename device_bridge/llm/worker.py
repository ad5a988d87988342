"""A process holding one loaded MNN-LLM model, on the workbench's machine or on a device.

``python -m device_bridge.llm.worker FOLDER THREADS [embedding]`` speaks JSON lines. It first
answers ``{"ready": true}`` (or ``{"error", "code"}`` when the model cannot load), then reads one
request a line:

* ``{"messages", "max_new_tokens", "sampler"}`` → ``{"token": text}`` lines, then
  ``{"done": summary}``;
* ``{"embed": [texts]}`` → ``{"done": {"vectors": …}}``;
* ``{"bench": {"prompt_tokens", "gen_tokens", "repeats"}}`` → ``{"progress", "stage"}`` lines,
  then ``{"done": {"cases": …}}``;
* ``{"stop": true}`` ends the request in progress (a chat ends with ``finish_reason: stopped``,
  a benchmark with an error) and answers nothing itself.

The first token of an answer is written at once; later ones are gathered over ``BATCH_S``
(``device_bridge/llm/runtime.py``), so a fast model costs its reader one wake-up per batch, not
per token. A failed request answers ``{"error": message}``.
"""

import json
import os
import select
import statistics
import sys
from collections import deque
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from device_bridge.llm.runtime import LoadedModel, Sampler

BENCH_TEXT = (
    "On-device inference keeps data on the phone, answers without a network and costs nothing "
    "per request. A small model, quantized to four or eight bits, fits in memory next to the app. "
)


class Stopped(Exception):
    pass


class MissingRuntime(Exception):
    code = "no_mnn_llm"


class Out:
    """The protocol's stream: one JSON line a message."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def send(self, message: dict[str, Any]) -> None:
        self._stream.write(json.dumps(message) + "\n")
        self._stream.flush()

    def text(self, text: str) -> None:
        self.send({"token": text})


def _spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2),
            "max": round(max(values), 2)}


def bench_prompt(model: LoadedModel, tokens: int) -> list[int]:
    """Real text cut to ``tokens`` tokens."""
    ids: list[int] = []
    while len(ids) < tokens:
        ids += model.encode(BENCH_TEXT * 8)
    return ids[:tokens]


def bench_case(model: LoadedModel, tokens: int, gen_tokens: int, repeats: int,
               stopped: Callable[[], bool] = lambda: False) -> dict[str, Any]:
    """Prefill and decode speed for one prompt length: one warm-up, then ``repeats`` runs with
    greedy sampling and no stop token, so each run decodes ``gen_tokens``."""
    ids = bench_prompt(model, tokens)
    model.generate(ids, min(gen_tokens, 4), Sampler(), stop=False)
    prefill, decode, ttft = [], [], []
    for _ in range(repeats):
        summary = model.generate(ids, gen_tokens, Sampler(), stop=False, stopped=stopped).summary()
        if summary["finish_reason"] == "stopped":
            raise Stopped("the benchmark was stopped")
        prefill.append(summary["prefill_tps"])
        decode.append(summary["decode_tps"])
        ttft.append(summary["ttft_ms"])
    return {"prompt_tokens": tokens, "gen_tokens": gen_tokens, "prefill_tps": _spread(prefill),
            "decode_tps": _spread(decode), "ttft_ms": _spread(ttft)}


def _bench(model: LoadedModel, job: dict[str, Any], out: Out, stopped: Callable[[], bool]) -> None:
    lengths = [int(n) for n in job["prompt_tokens"]]
    cases = []
    for index, tokens in enumerate(lengths):
        out.send({"progress": index / len(lengths), "stage": f"prompt of {tokens} tokens"})
        cases.append(bench_case(model, tokens, int(job["gen_tokens"]), int(job["repeats"]), stopped))
    out.send({"done": {"cases": cases}})


def answer(model: LoadedModel, request: dict[str, Any], out: Out,
           stopped: Callable[[], bool] = lambda: False) -> None:
    if "embed" in request:
        out.send({"done": {"vectors": [model.embed(text).tolist() for text in request["embed"]]}})
        return
    if "bench" in request:
        _bench(model, request["bench"], out, stopped)
        return
    sampler = request.get("sampler") or {}
    generation = model.generate(
        model.prompt_ids(request["messages"]), int(request["max_new_tokens"]),
        Sampler(sampler.get("type", "greedy"), sampler.get("temperature", 0.8),
                sampler.get("top_k", 40), sampler.get("seed")),
        on_text=out.text, stopped=stopped,
    )
    out.send({"done": generation.summary()})


class Requests:
    """Request lines from a file descriptor, read by the generating thread itself: a request
    wakes one thread, and between batches of tokens a ``stop`` line is looked for without
    blocking."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = b""
        self._pending: deque[tuple[int, dict[str, Any]]] = deque()
        self._seen = 0
        self._stopped_upto = 0
        self._eof = False

    def _read(self, block: bool) -> None:
        if not block:
            try:
                if not select.select([self._fd], [], [], 0)[0]:
                    return
            except (OSError, ValueError):  # no select on this platform's pipes: no early stop
                return
        data = os.read(self._fd, 1 << 16)
        self._eof = not data
        *lines, self._buffer = (self._buffer + data).split(b"\n")
        for line in filter(None, lines):
            message = json.loads(line)
            if message.get("stop"):
                self._stopped_upto = self._seen
            else:
                self._seen += 1
                self._pending.append((self._seen, message))

    def __iter__(self) -> Iterator[tuple[dict[str, Any], Callable[[], bool]]]:
        while True:
            while not self._pending and not self._eof:
                self._read(block=True)
            if not self._pending:
                return
            index, message = self._pending.popleft()
            yield message, partial(self._stopped, index)

    def _stopped(self, index: int) -> bool:
        self._read(block=False)
        return self._stopped_upto >= index


def load(folder: Path, threads: int, embedding: bool) -> LoadedModel:
    try:
        import MNN.llm  # noqa: F401 - probed here so a missing runtime gets its own message
    except ImportError as exc:
        raise MissingRuntime(f"this Python's MNN has no MNN.llm ({exc}); install an MNN build "
                             "with LLM support (the PyPI wheel MNN >= 3.0 has it)") from exc
    return LoadedModel(folder, threads=threads, embedding=embedding)


def main(argv: list[str], seal: Callable[[], None] | None = None) -> int:
    # The protocol keeps the original stdout; MNN's native prints go to fd 1, now stderr.
    out = Out(os.fdopen(os.dup(1), "w", encoding="utf-8"))
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if seal is not None:
        seal()
    folder, threads, embedding = Path(argv[0]), int(argv[1]), len(argv) > 2 and argv[2] == "embedding"
    try:
        model = load(folder, threads, embedding)
    except Exception as exc:  # a broken export or runtime: say why, once
        code = getattr(exc, "code", "llm_load_failed")
        out.send({"error": f"cannot load {folder.name}: {type(exc).__name__}: {exc}", "code": code})
        return 1
    out.send({"ready": True})
    for request, stopped in Requests(sys.stdin.fileno()):
        try:
            answer(model, request, out, stopped)
        except Exception as exc:
            out.send({"error": f"{type(exc).__name__}: {exc}"[:2000]})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
