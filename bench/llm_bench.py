"""The ``llm-bench`` tool run against a bare ``MNN.llm`` loop: decode tokens/s, same model,
threads and prompt.

    python bench/llm_bench.py [--rounds N] [--repeats N] [--threads N] [--prompt N] [--tokens N]
                              [--bits 4|8|16] [--layers N] [--hidden N]

Builds the tiny Qwen2 of ``tests/fakes/llm.py`` (no download) and exports it through the
model-tools worker. Each round runs, in turn (the order swapped every round):

* ours: one ``llm-bench`` tool run as the server starts it (the pool's spare worker in the
  project's sandbox, ``bench/sandboxed_runs.py``), ``--repeats`` timed generations after its
  warm-up; its ``decode_tps`` median;
* bare, in this process: ``MNN.llm.create`` → ``set_config({thread_num, greedy})`` →
  ``load()``, then per repeat ``reset`` → ``generate_init`` → MNN's own token loop
  ``generate(ids, n)`` on the same prompt ids (``bench_prompt``'s text cut to ``--prompt``
  tokens), after one warm-up; its decode tokens/s two ways: MNN's ``decode_us`` (only its
  forwards and sampling) and the wall clock of the call less ``prefill_us`` (as ours is timed).

* before, in this process: the loop the tool ran before, one ``forward`` a token from Python
  (``mnn_loop=False``), same prompt, repeats and warm-up.

Printed: the medians over the rounds, and the median of the rounds' ratios ours / bare (target
>= 0.97), with the load average at the start and the end.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.llm_chat import prepare  # noqa: E402
from bench.sandboxed_runs import SandboxedRuns  # noqa: E402
from device_bridge.llm.runtime import LoadedModel, Sampler  # noqa: E402
from device_bridge.llm.worker import BENCH_TEXT, bench_prompt  # noqa: E402


class Bare:
    """MNN-LLM's own loop on the prompt ids the tool uses."""

    def __init__(self, folder: Path, threads: int, prompt: int) -> None:
        import MNN.llm

        self.llm = MNN.llm.create(str(folder / "config.json"))
        self.llm.set_config({"thread_num": threads, "sampler_type": "greedy"})
        self.llm.load()
        ids: list[int] = []
        while len(ids) < prompt:  # as ``device_bridge/llm/worker.py``'s ``bench_prompt``
            ids += list(self.llm.tokenizer_encode(BENCH_TEXT * 8))
        self.ids = ids[:prompt]

    def once(self, tokens: int) -> tuple[float, float, int]:
        llm = self.llm._c_obj
        llm.reset()
        llm.generate_init()
        started = time.perf_counter()
        llm.generate(self.ids, tokens)
        wall = time.perf_counter() - started
        context = llm.get_context()
        decoded = context["gen_seq_len"] - 1
        return (decoded / (context["decode_us"] / 1e6),
                decoded / (wall - context["prefill_us"] / 1e6), context["gen_seq_len"])

    def run(self, tokens: int, repeats: int) -> dict:
        self.once(min(tokens, 4))  # the tool's warm-up
        runs = [self.once(tokens) for _ in range(repeats)]
        return {"decode_us": statistics.median(r[0] for r in runs),
                "wall": statistics.median(r[1] for r in runs),
                "generated": min(r[2] for r in runs)}


def by_token(model: LoadedModel, args: argparse.Namespace) -> float:
    """What the tool ran before, in this process: ``bench_case`` with the loop kept in Python
    (``mnn_loop=False``), one forward a token."""
    ids = bench_prompt(model, args.prompt)
    model.generate(ids, min(args.tokens, 4), Sampler(), stop=False, mnn_loop=False)
    runs = [model.generate(ids, args.tokens, Sampler(), stop=False, mnn_loop=False).summary()
            for _ in range(args.repeats)]
    return statistics.median(r["decode_tps"] for r in runs)


def ours(runs: SandboxedRuns, model: Path, args: argparse.Namespace) -> float:
    body = {"model": str(model), "prompt_tokens": [args.prompt], "gen_tokens": args.tokens,
            "threads": args.threads, "repeats": args.repeats}
    result = runs.run("llm-bench", body)[1]
    return float(result["cases"][0]["decode_tps"]["median"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--prompt", type=int, default=64)
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--bits", type=int, default=16)
    parser.add_argument("--layers", type=int, default=2, help="2 x 64: the tests' tiny Qwen2")
    parser.add_argument("--hidden", type=int, default=64)
    args = parser.parse_args()
    start_load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        runs = SandboxedRuns(Path(tmp))
        try:
            model = prepare(runs.project, args.bits, args.layers, args.hidden)
            bare = Bare(model, args.threads, args.prompt)
            before = LoadedModel(model, threads=args.threads)
            ours(runs, model, args)  # untimed: the spare is started after a first run
            rows = []
            for index in range(args.rounds):
                runs.settle()
                if index % 2:
                    b = bare.run(args.tokens, args.repeats)
                    runs.settle()
                o = ours(runs, model, args)
                if not index % 2:
                    runs.settle()
                    b = bare.run(args.tokens, args.repeats)
                runs.settle()
                t = by_token(before, args)
                rows.append((o, b, t))
                print(f"round {index + 1}: ours {o:,.0f} tok/s, bare {b['wall']:,.0f} (wall) / "
                      f"{b['decode_us']:,.0f} (decode_us) tok/s, bare generated {b['generated']}, "
                      f"the token-by-token loop {t:,.0f} tok/s", flush=True)
        finally:
            runs.close()
    ours_tps = statistics.median(o for o, *_ in rows)
    wall = statistics.median(b["wall"] for _, b, _ in rows)
    decode_us = statistics.median(b["decode_us"] for _, b, _ in rows)
    print(f"load average {' '.join(f'{x:.2f}' for x in start_load)} at the start, "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end, {os.cpu_count()} cores")
    print(f"model: {model.name}, {args.threads} threads, prompt {args.prompt} tokens, "
          f"{args.tokens} generated, {args.rounds} rounds x {args.repeats} repeats")
    print(f"decode: ours {ours_tps:,.0f} tok/s, bare {wall:,.0f} (wall) / {decode_us:,.0f} (decode_us), "
          f"the token-by-token loop {statistics.median(t for *_, t in rows):,.0f}")
    for key in ("wall", "decode_us"):
        ratio = statistics.median(o / b[key] for o, b, _ in rows)
        before = statistics.median(t / b[key] for _, b, t in rows)
        print(f"ours / bare {key} (median of the rounds' ratios): {ratio:.3f} (target >= 0.97); "
              f"the token-by-token loop / bare {key}: {before:.3f}")


if __name__ == "__main__":
    main()
