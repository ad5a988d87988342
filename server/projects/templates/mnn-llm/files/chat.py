"""Answer prompts with a language model exported to MNN-LLM.

Usage: ``python chat.py [PROMPT ...] [--model FOLDER] [--max-new-tokens N] [--threads N]``.
Prompts come from the command line, else one per line from stdin, else a built-in greeting.
The model folder (``config.json``, ``llm.mnn``, ``llm.mnn.weight``, ``tokenizer.mtok``) is
``--model``, else ``$MNNWB_LLM_MODEL``, else ``models/llm`` beside this file.

Each answer prints ``MNNWB_METRIC {"step", "prompt_tokens", "generated_tokens", "prefill_tps",
"decode_tps", "ttft_ms"}`` and is appended to ``$MNNWB_OUTPUT_DIR/answers.jsonl``
(``./outputs/`` outside the workbench). Needs only MNN and numpy.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROMPT = "Hello, how are you today?"
REPLACEMENT = "\ufffd"
HOW_TO_EXPORT = """No exported model at {path}.
Export one in the workbench: right-click a Hugging Face-format folder (config.json, weights,
tokenizer) in the file tree -> "MNN-LLM: export, chat, benchmark..." -> Export, then copy the
exported folder to models/llm (or pass --model FOLDER, or set MNNWB_LLM_MODEL)."""


def metric(**values) -> None:
    print("MNNWB_METRIC " + json.dumps(values), flush=True)


def config_path(model: str) -> str:
    return model if model.endswith(".json") else os.path.join(model, "config.json")


def stop_tokens(config: str) -> set:
    """The stop ids in ``tokenizer.mtok``'s header: a magic line, the special/stop/prefix
    counts, then those ids on one line."""
    with open(config) as handle:
        tokenizer = json.load(handle).get("tokenizer_file", "tokenizer.mtok")
    with open(os.path.join(os.path.dirname(config), tokenizer), "rb") as handle:
        handle.readline()
        special, stop = (int(n) for n in handle.readline().split()[:2])
        ids = [int(n) for n in handle.readline().split()]
    return set(ids[special : special + stop])


class Model:
    """``MNN.llm``'s ``response()`` drops its max-new-tokens argument in Python, streams only to
    the C stdout and raises on byte tokens that are not UTF-8, so this loop is our own: one
    ``forward`` over the prompt (prefill), then one per new token, sampled with numpy."""

    def __init__(self, config: str, threads: int) -> None:
        import MNN.llm

        self.llm = MNN.llm.create(config)
        self.llm.set_config({"thread_num": threads, "sampler_type": "greedy"})
        self.llm.load()
        self.stops = stop_tokens(config)

    def decode(self, token: int) -> str:
        try:
            return str(self.llm.tokenizer_decode(token))
        except UnicodeDecodeError:
            return REPLACEMENT

    def logits(self, ids: list) -> np.ndarray:
        return np.asarray(self.llm.forward(ids).read(), dtype=np.float32).reshape(-1)

    def answer(self, messages: list, max_new_tokens: int) -> dict:
        ids = list(self.llm.tokenizer_encode(self.llm.apply_chat_template(messages)))
        self.llm.reset()
        self.llm.generate_init()
        started = time.perf_counter()
        logits, text, tokens, steps = self.logits(ids), "", [], 0
        prefill_s = time.perf_counter() - started
        decode_started = time.perf_counter()
        for index in range(max_new_tokens):
            token = int(np.argmax(logits))
            if token in self.stops:
                break
            tokens.append(token)
            piece = self.decode(token)
            text += piece
            print(piece, end="", flush=True)
            if index + 1 < max_new_tokens:
                logits, steps = self.logits([token]), steps + 1
        decode_s = time.perf_counter() - decode_started
        print()
        return {
            "answer": text, "prompt_tokens": len(ids), "generated_tokens": len(tokens),
            "prefill_tps": round(len(ids) / prefill_s, 2) if prefill_s else 0.0,
            "decode_tps": round(steps / decode_s, 2) if steps and decode_s else 0.0,
            "ttft_ms": round(prefill_s * 1000, 3),
        }


def read_prompts(given: list) -> list:
    if given:
        return given
    lines = [] if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read().splitlines()
    return [line.strip() for line in lines if line.strip()] or [DEFAULT_PROMPT]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prompts", nargs="*", help="prompts to answer (default: stdin lines)")
    parser.add_argument("--model", default=os.environ.get("MNNWB_LLM_MODEL")
                        or os.path.join(HERE, "models", "llm"))
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--system", default="You are a helpful assistant.")
    args = parser.parse_args()
    out_dir = os.environ.get("MNNWB_OUTPUT_DIR", "outputs")
    os.makedirs(out_dir, exist_ok=True)
    answers_path = os.path.join(out_dir, "answers.jsonl")
    open(answers_path, "w").close()
    config = config_path(args.model)
    if not os.path.isfile(config):
        print(HOW_TO_EXPORT.format(path=args.model))
        metric(step=0, answered=0)
        return 0
    model = Model(config, args.threads)
    for step, prompt in enumerate(read_prompts(args.prompts), start=1):
        messages = [{"role": "system", "content": args.system}, {"role": "user", "content": prompt}]
        print(f"> {prompt}")
        result = model.answer(messages, args.max_new_tokens)
        metric(step=step, **{k: v for k, v in result.items() if k != "answer"})
        with open(answers_path, "a") as handle:
            handle.write(json.dumps({"prompt": prompt, **result}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
