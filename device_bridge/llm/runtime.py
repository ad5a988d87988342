"""One loaded MNN-LLM model and the token loop around it, with per-token callbacks.

``MNN.llm``'s own ``response()`` streams only to the process's C stdout, drops the
max-new-tokens argument in its Python wrapper and raises ``UnicodeDecodeError`` on raw byte
tokens. So the loop here is ours: ``forward`` over the prompt (prefill, KV cache kept by MNN),
then one ``forward`` per new token, sampling in numpy. With the greedy sampler it yields exactly
the tokens of ``response()`` (a test holds it to that, and to Hugging Face ``generate``).
"""

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPLACEMENT = "\ufffd"


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
            return int(logits.argmax())  # the method: a tenth of np.argmax's call overhead
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
        self._pieces: dict[int, str] = {}

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

    def _logits(self, ids: list[int]) -> np.ndarray:
        """The last position's logits as MNN's own float32 array (no copy, any shape)."""
        return self._llm.forward(ids).read()

    def generate(self, ids: list[int], max_new_tokens: int, sampler: Sampler,
                 on_token: Callable[[str], None] | None = None, stop: bool = True,
                 stopped: Callable[[], bool] | None = None) -> Generation:
        """Prefill ``ids``, then sample up to ``max_new_tokens`` (fewer at a stop token, or
        when ``stopped()`` turns true: the caller cancelled)."""
        self._llm.reset()
        self._llm.generate_init()
        gen = Generation(prompt_tokens=len(ids))
        started = time.perf_counter()
        logits = self._logits(ids)
        for index in range(max_new_tokens):
            token = sampler(logits)
            now = time.perf_counter()
            if index == 0:
                gen.prefill_s, decode_started = now - started, now
            if stop and token in self.stops:
                gen.finish_reason = "stop"
                break
            if stopped is not None and stopped():
                gen.finish_reason = "stopped"
                break
            gen.tokens.append(token)
            piece = self.decode(token)
            gen.text += piece
            if on_token is not None:
                on_token(piece)
            if index + 1 < max_new_tokens:
                logits = self._logits([token])
                gen.decode_steps += 1
        gen.decode_s = time.perf_counter() - decode_started
        return gen

    def embed(self, text: str) -> np.ndarray:
        return np.asarray(self._llm.txt_embedding(text).read(), dtype=np.float32).reshape(-1)
