"""A process holding one loaded MNN-LLM model: ``python -m server.llm.chat_worker FOLDER THREADS``.

Speaks JSON lines: after ``{"ready": …}`` it reads one request a line (``{"messages",
"max_new_tokens", "sampler"}`` or ``{"embed": [texts]}``) and answers with ``{"token": text}``
lines and a final ``{"done": summary}`` (or ``{"error": message}``). Sealed like the export
worker: no sockets, no pip, no child processes.
"""

import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from server.llm import guard
from server.llm.runtime import LoadedModel, Sampler


def _send(out: TextIO, message: dict[str, Any]) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


def answer(model: LoadedModel, request: dict[str, Any], out: TextIO) -> None:
    if "embed" in request:
        vectors = [model.embed(text).tolist() for text in request["embed"]]
        _send(out, {"done": {"vectors": vectors}})
        return
    sampler = request.get("sampler") or {}
    ids = model.prompt_ids(request["messages"])
    generation = model.generate(
        ids, int(request["max_new_tokens"]),
        Sampler(sampler.get("type", "greedy"), sampler.get("temperature", 0.8),
                sampler.get("top_k", 40), sampler.get("seed")),
        on_token=lambda piece: _send(out, {"token": piece}),
    )
    _send(out, {"done": generation.summary()})


def main(argv: list[str]) -> int:
    # The protocol keeps the original stdout; MNN's native prints go to fd 1, now stderr.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    guard.seal()
    folder, threads, embedding = Path(argv[0]), int(argv[1]), len(argv) > 2 and argv[2] == "embedding"
    try:
        model = LoadedModel(folder, threads=threads, embedding=embedding)
    except Exception as exc:  # a broken export: say why, once
        _send(out, {"error": f"cannot load {folder.name}: {type(exc).__name__}: {exc}"})
        return 1
    _send(out, {"ready": True})
    for line in sys.stdin:
        try:
            answer(model, json.loads(line), out)
        except Exception as exc:
            _send(out, {"error": f"{type(exc).__name__}: {exc}"[:2000]})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
