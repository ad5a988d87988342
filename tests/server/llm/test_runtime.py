"""The token loop on a real export: a greedy answer handed to MNN's own loop in chunks gives the
tokens of the token-by-token loop, stops where it does, and hands its text on in batches."""

import shutil
from pathlib import Path

import pytest

from device_bridge.llm import runtime
from device_bridge.llm.runtime import LoadedModel, Sampler
from tests.fakes.llm import Llms

PROMPT = [{"role": "user", "content": "Hello, how are you today?"}]


@pytest.fixture
def model(llms: Llms) -> LoadedModel:
    return LoadedModel(llms.q16, threads=1)


@pytest.fixture
def chunks_of_16(monkeypatch: pytest.MonkeyPatch) -> None:
    """MNN's loop after the first tokens, whatever the machine's speed, 16 tokens a run."""
    monkeypatch.setattr(runtime, "_chunk", lambda step: 16)


def test_mnn_loop_chunks_give_the_token_by_token_answer(model: LoadedModel, chunks_of_16: None) -> None:
    ids = model.prompt_ids(PROMPT)
    expected = model.generate(ids, 300, Sampler(), stop=False, mnn_loop=False)  # token by token
    assert expected.chunks == 0
    texts: list[str] = []
    answer = model.generate(ids, 300, Sampler(), on_text=texts.append)
    assert answer.chunks > 3
    assert answer.tokens == expected.tokens and answer.finish_reason == "length"
    assert "".join(texts) == answer.text == expected.text
    assert answer.decode_steps == 299


def test_a_stop_token_inside_a_chunk_ends_the_answer_there(model: LoadedModel, chunks_of_16: None) -> None:
    ids = model.prompt_ids(PROMPT)
    expected = model.generate(ids, 300, Sampler(), stop=False, mnn_loop=False).tokens
    # the token whose first appearance is latest stands for the stop token (MNN's loop runs on
    # past it to the chunk's end; the answer must not)
    last = max(set(expected), key=expected.index)
    model.stops = {last}
    answer = model.generate(ids, 300, Sampler())
    assert answer.chunks > 0 and answer.finish_reason == "stop"
    assert answer.tokens == expected[: expected.index(last)]


def test_a_stop_asked_between_chunks_ends_the_answer(model: LoadedModel, chunks_of_16: None) -> None:
    ids = model.prompt_ids(PROMPT)
    expected = model.generate(ids, 300, Sampler(), stop=False, mnn_loop=False).tokens
    asked: list[bool] = []  # at the first token, then after each chunk (or a batch before)

    def stopped() -> bool:
        asked.append(True)
        return len(asked) == 4

    answer = model.generate(ids, 300, Sampler(), stopped=stopped)
    assert answer.finish_reason == "stopped" and answer.chunks >= 2
    assert 0 < len(answer.tokens) < 300 and answer.tokens == expected[: len(answer.tokens)]


class CountingForwards:
    """Stands in for the model's C object, counting the forwards made from Python."""

    def __init__(self, c_obj: object) -> None:
        self._c_obj, self.forwards = c_obj, 0

    def forward(self, ids: list[int]) -> object:
        self.forwards += 1
        return self._c_obj.forward(ids)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self._c_obj, name)


def test_the_speed_of_the_last_answer_hands_the_next_to_mnns_loop_at_its_first_token(
    model: LoadedModel, chunks_of_16: None
) -> None:
    ids = model.prompt_ids(PROMPT)
    counting = CountingForwards(model._llm._c_obj)
    model._llm._c_obj = counting
    first = model.generate(ids, 300, Sampler())
    assert counting.forwards == runtime.PROBE  # the prefill, then tokens 2 and 3 from Python
    counting.forwards = 0
    second = model.generate(ids, 300, Sampler())
    assert counting.forwards == 1  # the prefill only: every token after it from MNN's loop
    assert second.chunks > 3
    by_token = model.generate(ids, 300, Sampler(), stop=False, mnn_loop=False)
    assert second.tokens == first.tokens == by_token.tokens


def _with_stop_token(source: Path, folder: Path, token: int) -> Path:
    """A copy of an export whose tokenizer lists ``token`` as one more stop token, so that MNN's
    own loop ends there (``tokenizer.mtok``'s header: ``MAGIC TYPE``, ``SPECIAL STOP PREFIX``
    counts, then the special, stop and prefix ids)."""
    shutil.copytree(source, folder)
    mtok = folder / "tokenizer.mtok"
    first, counts, ids, rest = mtok.read_bytes().split(b"\n", 3)
    special, stop, prefix = (int(n) for n in counts.split()[:3])
    numbers = ids.split()
    numbers.insert(special + stop, str(token).encode())
    counts = b" ".join([str(special).encode(), str(stop + 1).encode(), str(prefix).encode()])
    mtok.write_bytes(b"\n".join([first, counts, b" ".join(numbers), rest]))
    return folder


def test_a_benchmark_decodes_in_mnns_loop_past_the_models_stop_tokens(
    llms: Llms, model: LoadedModel, chunks_of_16: None, tmp_path: Path
) -> None:
    """No stop honoured (a benchmark): MNN's loop in chunks gives the token-by-token tokens,
    also where MNN's loop itself ends early at a stop token of the model's."""
    ids = model.prompt_ids(PROMPT)
    expected = model.generate(ids, 300, Sampler(), stop=False, mnn_loop=False)
    assert expected.chunks == 0
    answer = model.generate(ids, 300, Sampler(), stop=False)
    assert answer.chunks > 3 and answer.tokens == expected.tokens and answer.decode_steps == 299
    # a token first seen mid-answer, made a stop token of the model's copy
    later = [t for t in expected.tokens[40:] if t not in expected.tokens[:40]]
    stopping = LoadedModel(_with_stop_token(llms.q16, tmp_path / "stopping", later[0]), threads=1)
    assert later[0] in stopping.stops
    reference = stopping.generate(ids, 300, Sampler(), stop=False, mnn_loop=False)
    assert reference.tokens == expected.tokens
    assert stopping.generate(ids, 300, Sampler()).finish_reason == "stop"
    bench = stopping.generate(ids, 300, Sampler(), stop=False)
    assert bench.chunks > 3 and bench.finish_reason == "length"
    assert bench.tokens == expected.tokens
