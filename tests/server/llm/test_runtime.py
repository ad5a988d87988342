"""The token loop on a real export: a greedy answer handed to MNN's own loop in chunks gives the
tokens of the token-by-token loop, stops where it does, and hands its text on in batches."""

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
    expected = model.generate(ids, 300, Sampler(), stop=False)  # never handed over: no stop
    assert expected.chunks == 0
    texts: list[str] = []
    answer = model.generate(ids, 300, Sampler(), on_text=texts.append)
    assert answer.chunks > 3
    assert answer.tokens == expected.tokens and answer.finish_reason == "length"
    assert "".join(texts) == answer.text == expected.text
    assert answer.decode_steps == 299


def test_a_stop_token_inside_a_chunk_ends_the_answer_there(model: LoadedModel, chunks_of_16: None) -> None:
    ids = model.prompt_ids(PROMPT)
    expected = model.generate(ids, 300, Sampler(), stop=False).tokens
    # the token whose first appearance is latest stands for the stop token (MNN's loop runs on
    # past it to the chunk's end; the answer must not)
    last = max(set(expected), key=expected.index)
    model.stops = {last}
    answer = model.generate(ids, 300, Sampler())
    assert answer.chunks > 0 and answer.finish_reason == "stop"
    assert answer.tokens == expected[: expected.index(last)]


def test_a_stop_asked_between_chunks_ends_the_answer(model: LoadedModel, chunks_of_16: None) -> None:
    ids = model.prompt_ids(PROMPT)
    expected = model.generate(ids, 300, Sampler(), stop=False).tokens
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
    assert second.tokens == first.tokens == model.generate(ids, 300, Sampler(), stop=False).tokens
