"""``llm-bench`` in the model-tools worker: prefill and decode tokens/s per prompt length.

The cases are measured as on a device (``device_bridge/llm/worker.py``'s ``bench_case``).
"""

from pathlib import Path
from typing import Any

from device_bridge.llm.runtime import LoadedModel
from device_bridge.llm.worker import bench_case
from server.modeltools.progress import report
from server.modeltools.schemas import LlmBenchArgs


def run(args: LlmBenchArgs) -> dict[str, Any]:
    model = LoadedModel(Path(args.model), threads=args.threads)
    cases = []
    for index, tokens in enumerate(args.prompt_tokens):
        report(index / len(args.prompt_tokens), f"prompt of {tokens} tokens")
        cases.append(bench_case(model, tokens, args.gen_tokens, args.repeats))
    return {"threads": args.threads, "repeats": args.repeats, "cases": cases}
