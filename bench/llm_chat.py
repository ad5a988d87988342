"""Chat through the workbench against a bare ``MNN.llm`` loop: decode tokens/s, first-token time.

    python bench/llm_chat.py [--rounds N] [--repeats N] [--threads N] [--bits 4|8|16] [--tokens N]
                             [--no-stream]

Builds the tiny Qwen2 of ``tests/fakes/llm.py`` (no download), exports it through the
model-tools worker, starts a real ``mnnwb serve`` and chats with ``POST .../llm/chat``
(``stream: true``, tokens read from one tab socket kept open, as a tab keeps it;
``--no-stream``: the answer in the HTTP response only). The baseline, in this process:
``MNN.llm.create`` → ``set_config({thread_num, greedy})`` → ``load()`` → MNN's own token loop
``generate(ids, n)`` on the same prompt's ids, figures from ``llm.context``. Same prompt, same
threads, one bare run then one chat a pair, one warm-up each, medians over ``--rounds`` of
``--repeats`` pairs, each round with a server, a model process and a bare load of its own:

* decode tokens/s (target >= 95 %): the answer's ``decode_tps``, which the model's process times
  with the wall clock from the first token to the last, against the bare loop timed two ways:
  MNN's own ``decode_us``, which counts only its forwards (not its sampling), and the same wall
  clock as ours (the call less its ``prefill_us``), which compares like with like. Also the
  median of the pairs' ratios, with a 95 % interval for it;
* CPU time per generated token of the whole answer (template, prefill, decode): the model
  process's (its threads' ``schedstat``) against the bare loop's (``process_time``). Unlike
  tokens/s it does not count waiting for a core, so it means something on a busy machine;
* first token: the answer's ``ttft_ms`` (prefill in the model's process) and the time from
  sending the request to the first token on the tab socket, each minus the bare ``prefill_us``
  (target <= 20 ms);
* the HTTP round trip: request to answer, minus the answer's prefill + decode time;
* for scale, a plain ``GET /api/health`` round trip in the same run, after the chats: what any
  request costs on the machine, before the chat's own path.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import websockets.sync.client as ws_client
from websockets.sync.client import ClientConnection

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.serverproc import start_server, stop_server  # noqa: E402
from tests.fakes.llm import build_model, build_tokenizer, export  # noqa: E402

PROMPT = "The quick brown fox jumps over the lazy dog. Convert, quantize and benchmark a model."


def cpu_ns(pid: int) -> int:
    """CPU time of every thread of ``pid`` so far, in ns (``/proc/PID/task/*/schedstat``)."""
    return sum(int(task.joinpath("schedstat").read_text().split()[0])
               for task in Path(f"/proc/{pid}/task").iterdir())


def asleep(pids: list[int]) -> None:
    """Return once every thread of ``pids`` sleeps: a bare run starts on a machine where the
    server and the model's process have finished with the chat before it."""
    while any(stat.read_text().rsplit(")", 1)[1].split()[0] == "R"
              for pid in pids for stat in Path(f"/proc/{pid}/task").glob("*/stat")):
        time.sleep(0.0002)


def model_process(server_pid: int) -> int:
    """The server's chat model process (``server.llm.chat_worker``)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = stat.with_name("cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == server_pid and b"server.llm.chat_worker" in cmdline:
            return int(stat.parent.name)
    raise RuntimeError("no chat model process under the server")


class Bare:
    """The bare loop: MNN-LLM's own token loop, ``generate(ids, n)``, with its own timers."""

    def __init__(self, folder: Path, threads: int) -> None:
        import MNN.llm

        self.llm = MNN.llm.create(str(folder / "config.json"))
        self.llm.set_config({"thread_num": threads, "sampler_type": "greedy"})
        self.llm.load()

    def run(self, tokens: int) -> dict:
        """One answer to the prompt, timed two ways: MNN's ``decode_us``, which counts only the
        forwards after the first token (that one is the prefill's), not the loop's sampling and
        bookkeeping; and the wall clock as the workbench times its loop: the whole call less
        ``prefill_us``. The CPU time also counts the template and the tokenizer, as the model
        process's does. One run a pair: a second run straight after a first finds the caches
        warm, which the workbench's answer, after a bare run, does not."""
        llm = self.llm._c_obj
        llm.reset()
        llm.generate_init()
        cpu = time.process_time()
        template = self.llm.apply_chat_template([{"role": "user", "content": PROMPT}])
        ids = list(llm.tokenizer_encode(template))
        started = time.perf_counter()
        llm.generate(ids, tokens)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        context = llm.get_context()
        decoded = context["gen_seq_len"] - 1
        return {"prompt_tokens": context["prompt_len"], "generated": context["gen_seq_len"],
                "cpu_us_per_token": cpu * 1e6 / context["gen_seq_len"],
                "decode_tps": decoded / (context["decode_us"] / 1e6),
                "decode_tps_wall": decoded / (wall - context["prefill_us"] / 1e6),
                "prefill_ms": context["prefill_us"] / 1000}


class Workbench:
    def __init__(self, api: httpx.Client, pid: str, threads: int, socket: ClientConnection,
                 server_pid: int, stream: bool = True) -> None:
        """``socket``: one tab socket for every chat, as a person's tab keeps one. Without
        ``stream`` the answer comes only in the HTTP response: nothing reaches the socket."""
        self.api, self.pid, self.threads, self.socket = api, pid, threads, socket
        self.server_pid, self.model_pid, self.stream = server_pid, 0, stream
        json.loads(self.socket.recv(timeout=60))  # sys/hello: the tab is subscribed

    def chat(self, tokens: int, chat_id: str) -> dict:
        body = {"model": "models/llm", "max_new_tokens": tokens, "threads": self.threads,
                "stream": self.stream, "chat_id": chat_id,
                "messages": [{"role": "user", "content": PROMPT}]}
        reply: dict = {}
        cpu = cpu_ns(self.model_pid) if self.model_pid else 0
        ready = threading.Event()
        poster = threading.Thread(target=lambda: reply.update(self._post(body, ready)))
        poster.start()
        ready.wait()
        if self.stream:
            first_token = self._until(chat_id, "token")
            self._until(chat_id, "done")
        poster.join()
        answer = reply["answer"]
        if self.stream:
            answer["first_token_ms"] = (first_token - reply["sent"]) * 1000
        if not self.model_pid:  # the first chat started the model process: no figure for it
            self.model_pid = model_process(self.server_pid)
        else:
            answer["cpu_us_per_token"] = (cpu_ns(self.model_pid) - cpu) / 1000 / answer["generated_tokens"]
        return {**answer, "overhead_ms": reply["wall_ms"] - answer["prefill_ms"] - answer["decode_ms"]}

    def health_ms(self) -> float:
        started = time.perf_counter()
        self.api.get("/api/health").raise_for_status()
        return (time.perf_counter() - started) * 1000

    def _post(self, body: dict, ready: threading.Event) -> dict:
        sent = time.perf_counter()
        ready.set()
        response = self.api.post(f"/api/projects/{self.pid}/llm/chat", json=body)
        wall_ms = (time.perf_counter() - sent) * 1000
        response.raise_for_status()
        return {"answer": response.json(), "wall_ms": wall_ms, "sent": sent}

    def _until(self, chat_id: str, kind: str) -> float:
        """When the ``llm/kind`` event of ``chat_id`` arrived on the tab socket."""
        while True:
            event = json.loads(self.socket.recv(timeout=120))
            if event.get("channel") == "llm" and event["type"] == kind and (
                event["data"].get("chat_id") == chat_id
            ):
                return time.perf_counter()


def prepare(root: Path, bits: int, layers: int, hidden: int) -> Path:
    """The tiny Qwen2 of the tests, or one as wide and deep as asked (same tokenizer)."""
    if (layers, hidden) == (2, 64):
        return export(build_model(root / "tiny-qwen2"), root / f"tiny-q{bits}", bits)
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    source = root / f"qwen2-{layers}x{hidden}"
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=512, hidden_size=hidden, intermediate_size=hidden * 3,
                         num_hidden_layers=layers, num_attention_heads=hidden // 64,
                         num_key_value_heads=max(1, hidden // 256), max_position_embeddings=2048,
                         bos_token_id=0, eos_token_id=2, tie_word_embeddings=False)
    Qwen2ForCausalLM(config).save_pretrained(source)
    build_tokenizer(source)
    return export(source, root / f"{source.name}-q{bits}", bits)


def alternate(bare: Bare, workbench: Workbench, tokens: int, repeats: int) -> tuple[list, list]:
    """A bare run, then a chat, ``repeats`` times: each run comes straight after one of the
    other kind, so both find the caches as the other left them (alternating which went first
    put two bare runs back to back in every other pair). The health requests come after."""
    bare.run(tokens), workbench.chat(tokens, "warmup")
    bare_runs, ours = [], []
    for index in range(repeats):
        asleep([workbench.server_pid, workbench.model_pid])
        bare_runs.append(bare.run(tokens))
        ours.append(workbench.chat(tokens, f"run{index}"))
    for chat in ours:
        chat["health_ms"] = workbench.health_ms()
    return bare_runs, ours


def median(runs: list, key: str) -> float:
    return statistics.median(run[key] for run in runs)


def paired_ratio(bare_runs: list, ours: list) -> tuple[float, float, float]:
    """The median of each chat's decode tokens/s over that of the bare run beside it (by the
    wall clock), with a distribution-free 95 % interval for that median (the order statistics
    n/2 -/+ 0.98 sqrt(n)): the machine's speed drifts over a run, and a pair sees one moment
    of it."""
    ratios = sorted(our["decode_tps"] / bare["decode_tps_wall"]
                    for bare, our in zip(bare_runs, ours, strict=True))
    n, half = len(ratios), 0.98 * len(ratios) ** 0.5
    low, high = max(0, int(n / 2 - half)), min(n - 1, int(n / 2 + half + 0.5))
    return statistics.median(ratios), ratios[low], ratios[high]


def report(bare_runs: list, ours: list, rounds: list[float], args: argparse.Namespace) -> None:
    bare_tps, our_tps = median(bare_runs, "decode_tps"), median(ours, "decode_tps")
    bare_wall_tps = median(bare_runs, "decode_tps_wall")
    bare_prefill = median(bare_runs, "prefill_ms")
    bare_cpu, our_cpu = median(bare_runs, "cpu_us_per_token"), median(ours, "cpu_us_per_token")
    rows = [
        ("prompt / generated tokens", f"{bare_runs[0]['prompt_tokens']} / {bare_runs[0]['generated']}",
         f"{ours[0]['prompt_tokens']} / {ours[0]['generated_tokens']}", ""),
        ("decode tokens/s, bare by MNN's timer", f"{bare_tps:.1f}", f"{our_tps:.1f}",
         f"{our_tps / bare_tps:.1%}"),
        ("decode tokens/s, both by the wall clock", f"{bare_wall_tps:.1f}", f"{our_tps:.1f}",
         f"{our_tps / bare_wall_tps:.1%} (>= 95%)"),
        ("paired: median of the pairs' ratios", "", "",
         "{:.1%} (95% interval {:.1%} - {:.1%})".format(*paired_ratio(bare_runs, ours))),
        ("  the same, round by round", "", "", ", ".join(f"{ratio:.1%}" for ratio in rounds)),
        ("CPU us per generated token", f"{bare_cpu:.1f}", f"{our_cpu:.1f}",
         f"bare / ours {bare_cpu / our_cpu:.1%}"),
        ("prefill / ttft ms", f"{bare_prefill:.2f}", f"{median(ours, 'ttft_ms'):.2f}",
         f"+{median(ours, 'ttft_ms') - bare_prefill:.2f} ms (<= 20)"),
        *([("request -> first token on socket ms", "", f"{median(ours, 'first_token_ms'):.2f}",
            f"+{median(ours, 'first_token_ms') - bare_prefill:.2f} ms (<= 20)")] if args.stream else []),
        ("HTTP round trip beyond generation ms", "", f"{median(ours, 'overhead_ms'):.2f}", ""),
        ("plain GET /api/health round trip ms", "", f"{median(ours, 'health_ms'):.2f}", "for scale"),
    ]
    load = f"load average {args.load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    print(f"random Qwen2 {args.layers} layers x {args.hidden} wide, q{args.bits}, {args.threads} threads, "
          f"{args.tokens} new tokens{'' if args.stream else ', not streamed'}, medians of {args.rounds} "
          f"rounds x {args.repeats} pairs, {load}")
    print(f"{'':40} {'bare MNN.llm':>14} {'workbench':>12}  ratio / overhead")
    for name, bare_value, our_value, verdict in rows:
        print(f"{name:40} {bare_value:>14} {our_value:>12}  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21, help="pairs a round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each with fresh processes")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--bits", type=int, default=4, choices=(4, 8, 16))
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=64, help="a multiple of 64")
    parser.add_argument("--no-stream", dest="stream", action="store_false",
                        help="chat without streaming: no token reaches this process mid-answer")
    args = parser.parse_args()
    args.load = os.getloadavg()[0]
    bare_runs, ours, rounds = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = prepare(Path(tmp) / "models", args.bits, args.layers, args.hidden)
        for index in range(args.rounds):
            bare_round, our_round = one_round(folder, Path(tmp) / f"data{index}", args)
            bare_runs += bare_round
            ours += our_round
            rounds.append(paired_ratio(bare_round, our_round)[0])
    report(bare_runs, ours, rounds, args)


def one_round(folder: Path, data: Path, args: argparse.Namespace) -> tuple[list, list]:
    """``--repeats`` pairs with a server, a model process and a bare load of their own. The
    ratio moves by a few percent from one set of processes to the next (93-99 % in six runs of
    61 pairs, each run's own 95 % interval about +/- 1 %), so the figures pool rounds."""
    proc, url, token = start_server(data)
    try:
        headers = {"Authorization": f"Bearer {token}", "X-MNNWB-CSRF": "1"}
        with httpx.Client(base_url=url, headers=headers, timeout=300) as api:
            project = api.post("/api/projects", json={"name": "llm-bench"}).json()
            shutil.copytree(folder, Path(project["path"]) / "models" / "llm")
            ws_url = url.replace("http://", "ws://") + f"/api/projects/{project['id']}/ws"
            bearer = {"Authorization": headers["Authorization"]}
            with ws_client.connect(ws_url, additional_headers=bearer) as socket:
                workbench = Workbench(api, project["id"], args.threads, socket, proc.pid, args.stream)
                bare = Bare(folder, args.threads)
                return alternate(bare, workbench, args.tokens, args.repeats)
    finally:
        stop_server(proc)

if __name__ == "__main__":
    main()
