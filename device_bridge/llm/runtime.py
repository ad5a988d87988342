"""One loaded MNN-LLM model and the token loop around it, its text handed on in batches.

``MNN.llm``'s own ``response()`` streams only to the process's C stdout, drops the
max-new-tokens argument in its Python wrapper and raises ``UnicodeDecodeError`` on raw byte
tokens; its ``generate(ids, n)`` runs MNN's token loop with no callback and holds the GIL, so
nothing can stop it half-way. So the loop here is ours: ``forward`` over the prompt (prefill, KV
cache kept by MNN), then one ``forward`` per new token. Once tokens come fast (a small model),
where the few microseconds of Python a token would count, a greedy answer goes on in MNN's
own loop in chunks of ``CHUNK_S``, with the text handed on and a stop looked for between two.
With the greedy sampler it yields exactly the tokens of ``response()`` (tests hold it to that,
to Hugging Face ``generate`` and the chunks to the token-by-token loop).
"""

import json
import time
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPLACEMENT = "\ufffd"
BATCH_S = 0.005
CHUNK_S = 0.05  # MNN's own loop runs about this long between two looks from Python ...
MIN_CHUNK = 32  # ... and only when that is at least this many tokens (one extra forward each)
PROBE = 3  # tokens made one by one before the speed is judged, unless an answer before told it
CHUNK_CALLS = ("get_context", "get_current_history", "erase_history")


def _greedy(logits: np.ndarray) -> int:
    return int(logits.argmax())  # the array's method: a tenth of np.argmax's call overhead


def config_path(model: Path) -> Path:
    """The ``config.json`` of an exported folder (or the file itself)."""
    return model if model.name.endswith(".json") else model / "config.json"


def stop_tokens(folder: Path) -> set[int]:
    """The stop ids written in ``tokenizer.mtok``'s header: ``MAGIC TYPE``, ``SPECIAL STOP
    PREFIX`` counts, then the special, stop and prefix ids on one line."""
    config = json.loads(config_path(folder).read_text())
    with (config_path(folder).parent / config.get("tokenizer_file", "tokenizer.mtok")).open("rb") as fh:
        fh.readline()
        special, stop, prefix = (int(n) for n in fh.readline().split()[:3])
        ids = [int(n) for n in fh.readline().split()]
    return set(ids[special : special + stop])


@dataclass
class Generation:
    text: str = ""
    prompt_tokens: int = 0
    tokens: list[int] = field(default_factory=list)
    prefill_s: float = 0.0
    decode_s: float = 0.0
    finish_reason: str = "length"
    decode_steps: int = 0
    chunks: int = 0  # runs of MNN's own token loop

    def summary(self) -> dict[str, Any]:
        decoded = self.decode_steps
        return {
            "text": self.text,
            "prompt_tokens": self.prompt_tokens,
            "generated_tokens": len(self.tokens),
            "prefill_ms": round(self.prefill_s * 1000, 3),
            "decode_ms": round(self.decode_s * 1000, 3),
            "prefill_tps": round(self.prompt_tokens / self.prefill_s, 2) if self.prefill_s else 0.0,
            "decode_tps": round(decoded / self.decode_s, 2) if self.decode_s else 0.0,
            "ttft_ms": round(self.prefill_s * 1000, 3),
            "finish_reason": self.finish_reason,
        }


class Sampler:
    def __init__(self, kind: str = "greedy", temperature: float = 0.8, top_k: int = 40,
                 seed: int | None = None) -> None:
        self.kind, self.temperature, self.top_k = kind, temperature, top_k
        self._rng = np.random.default_rng(seed)

    def __call__(self, logits: np.ndarray) -> int:
        if self.kind == "greedy":
            return _greedy(logits)
        logits = logits.reshape(-1)
        top = np.argpartition(logits, -self.top_k)[-self.top_k :] if self.top_k < logits.size else (
            np.arange(logits.size))
        scaled = logits[top] / self.temperature
        weights = np.exp(scaled - scaled.max())
        return int(top[self._rng.choice(top.size, p=weights / weights.sum())])


class LoadedModel:
    """An ``MNN.llm`` model, loaded once and reset before each generation."""

    def __init__(self, folder: Path, threads: int = 2, embedding: bool = False) -> None:
        import MNN.llm

        self.folder = config_path(folder).parent
        self._llm = MNN.llm.create(str(config_path(folder)), embedding)
        self._llm.set_config({"thread_num": threads, "sampler_type": "greedy"})
        self._llm.load()
        self.stops = set() if embedding else stop_tokens(self.folder)
        # an older MNN (a device's) lacks what running its own loop in chunks needs
        self._chunks = all(hasattr(self._llm._c_obj, name) for name in CHUNK_CALLS)
        self._pieces: dict[int, str] = {}
        self._step = 0.0  # seconds a token in the last answer long enough to tell

    def prompt_ids(self, messages: Sequence[dict[str, str]]) -> list[int]:
        return self.encode(self._llm.apply_chat_template([dict(m) for m in messages]))

    def encode(self, text: str) -> list[int]:
        return list(self._llm.tokenizer_encode(text))

    def decode(self, token: int) -> str:
        """One token's text, remembered: on a small model a decode costs a tenth of a step."""
        piece = self._pieces.get(token)
        if piece is None:
            try:
                piece = str(self._llm.tokenizer_decode(token))
            except UnicodeDecodeError:
                piece = REPLACEMENT
            self._pieces[token] = piece
        return piece

    def text(self, tokens: Sequence[int]) -> str:
        return "".join(map(self.decode, tokens))

    def generate(self, ids: list[int], max_new_tokens: int, sampler: Sampler,
                 on_text: Callable[[str], None] | None = None, stop: bool = True,
                 stopped: Callable[[], bool] | None = None, mnn_loop: bool = True) -> Generation:
        """Prefill ``ids``, then sample up to ``max_new_tokens`` (fewer at a stop token, or
        when ``stopped()`` turns true: the caller cancelled). ``on_text`` gets the first token's
        text at once, then the text of the tokens that came in each ``BATCH_S``, when ``stopped``
        is asked too. If tokens come fast (judged by the last answer, or by the first ``PROBE``
        tokens of the first), a greedy answer goes on in MNN's own loop (unless ``mnn_loop`` is
        false), with or without its stop tokens (``stop``: a benchmark decodes past them)."""
        self._llm.reset()
        self._llm.generate_init()
        forward = self._llm._c_obj.forward  # the wrapper's method only passes its argument on
        pick = _greedy if sampler.kind == "greedy" else sampler
        stops = self.stops if stop else frozenset()
        handover = mnn_loop and pick is _greedy and self._chunks  # MNN's loop: greedy
        gen, batches = Generation(prompt_tokens=len(ids)), _Batches(self, on_text, stopped)
        tokens = gen.tokens
        started = time.perf_counter()
        token = pick(forward(ids).read())
        decode_started = time.perf_counter()
        gen.prefill_s = decode_started - started
        while True:
            if token in stops:
                gen.finish_reason = "stop"
                break
            tokens.append(token)
            if len(tokens) == max_new_tokens:
                break
            now = time.perf_counter()
            if batches.due(now) and not batches.flush(tokens, now):
                gen.finish_reason = "stopped"
                break
            if handover and (chunk := self._handover(len(tokens), now - decode_started)):
                gen.finish_reason = self._mnn_loop(gen, max_new_tokens, batches, chunk, stops)
                break
            token = pick(forward([token]).read())
        gen.decode_s = time.perf_counter() - decode_started
        gen.decode_steps = len(tokens) - (gen.finish_reason != "stop")  # the forwards after the first
        if gen.decode_steps >= PROBE:
            self._step = gen.decode_s / gen.decode_steps
        gen.text = self.text(tokens)
        batches.finish(tokens)
        return gen

    def _handover(self, made: int, elapsed: float) -> int:
        """The chunk to go on with in MNN's loop after ``made`` tokens; 0: not now."""
        if made == 1 and self._step:
            return _chunk(self._step)
        return _chunk(elapsed / (PROBE - 1)) if made == PROBE else 0

    def _mnn_loop(self, gen: Generation, max_new_tokens: int, batches: "_Batches", chunk: int,
                  stops: Set[int]) -> str:
        """Go on with MNN's own token loop (``generate(ids, n)``: forward ``ids``, then sample
        and forward ``n`` tokens, stopping at a stop token) ``chunk`` tokens at a time; between
        two, the text is handed on and a stop asked for. The last token is sampled, not yet
        forwarded; a chunk's last token is forwarded by MNN, then taken out of the KV cache
        and forwarded again as the next chunk's input: one extra forward a chunk. MNN's loop
        ends early at a stop token of the model's, which it has not forwarded; when ``stops``
        (the ones the answer honours) is empty, the next chunk goes on from it as the
        token-by-token loop would."""
        llm, tokens = self._llm._c_obj, gen.tokens
        known = len(llm.get_context()["output_tokens"])
        while True:
            gen.chunks += 1
            asked = min(chunk, max_new_tokens - len(tokens))
            out = llm.generate([tokens[-1]], asked)
            new, known = out[known:], len(out)
            ended = next((i for i, token in enumerate(new) if token in stops), None)
            tokens.extend(new[:ended])
            if ended is not None:
                return "stop"
            if len(tokens) >= max_new_tokens:
                return "length"
            if not batches.flush(tokens, time.perf_counter()):
                return "stopped"
            if len(new) == asked:  # else MNN ended at its stop token, before forwarding it
                history = llm.get_current_history()
                llm.erase_history(history - 1, history)

    def embed(self, text: str) -> np.ndarray:
        return np.asarray(self._llm.txt_embedding(text).read(), dtype=np.float32).reshape(-1)


def _chunk(step: float) -> int:
    """Tokens a run of MNN's own loop, at ``step`` seconds a token; 0: stay token by token."""
    chunk = int(CHUNK_S / step)
    return chunk if chunk >= MIN_CHUNK else 0


class _Batches:
    """An answer's text handed on in batches, with a look for the caller's stop at each."""

    def __init__(self, model: LoadedModel, on_text: Callable[[str], None] | None,
                 stopped: Callable[[], bool] | None) -> None:
        self._model, self._on_text, self._stopped = model, on_text, stopped
        self._sent, self._last = 0, 0.0

    def due(self, now: float) -> bool:
        return not self._sent or now - self._last >= BATCH_S

    def flush(self, tokens: list[int], now: float) -> bool:
        """False when the caller has stopped the answer."""
        if self._stopped is not None and self._stopped():
            return False
        if self._on_text is not None:
            self._on_text(self._model.text(tokens[self._sent :]))
        self._sent, self._last = len(tokens), now
        return True

    def finish(self, tokens: list[int]) -> None:
        if self._on_text is not None and self._sent < len(tokens):
            self._on_text(self._model.text(tokens[self._sent :]))
