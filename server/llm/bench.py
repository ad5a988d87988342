"""``llm-bench`` in the model-tools worker: prefill and decode tokens/s per prompt length.

Each prompt is real text cut to the asked number of tokens; each case runs ``repeats`` times
after one warm-up, with greedy sampling and no stop token, so every run decodes ``gen_tokens``.
"""

import statistics
from pathlib import Path
from typing import Any

from server.llm.runtime import LoadedModel, Sampler
from server.modeltools.progress import report
from server.modeltools.schemas import LlmBenchArgs

TEXT = (
    "On-device inference keeps data on the phone, answers without a network and costs nothing "
    "per request. A small model, quantized to four or eight bits, fits in memory next to the app. "
)


def prompt_of(model: LoadedModel, tokens: int) -> list[int]:
    ids: list[int] = []
    while len(ids) < tokens:
        ids += model.encode(TEXT * 8)
    return ids[:tokens]


def _spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2),
            "max": round(max(values), 2)}


def run_case(model: LoadedModel, tokens: int, args: LlmBenchArgs) -> dict[str, Any]:
    ids = prompt_of(model, tokens)
    model.generate(ids, min(args.gen_tokens, 4), Sampler(), stop=False)
    prefill, decode, ttft = [], [], []
    for _ in range(args.repeats):
        summary = model.generate(ids, args.gen_tokens, Sampler(), stop=False).summary()
        prefill.append(summary["prefill_tps"])
        decode.append(summary["decode_tps"])
        ttft.append(summary["ttft_ms"])
    return {"prompt_tokens": tokens, "gen_tokens": args.gen_tokens, "prefill_tps": _spread(prefill),
            "decode_tps": _spread(decode), "ttft_ms": _spread(ttft)}


def run(args: LlmBenchArgs) -> dict[str, Any]:
    model = LoadedModel(Path(args.model), threads=args.threads)
    cases = []
    for index, tokens in enumerate(args.prompt_tokens):
        report(index / len(args.prompt_tokens), f"prompt of {tokens} tokens")
        cases.append(run_case(model, tokens, args))
    return {"threads": args.threads, "repeats": args.repeats, "cases": cases}
