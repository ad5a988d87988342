"""The chat API on a real exported model: answers, streamed tokens, a model kept loaded."""

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.llm.runtime import LoadedModel, Sampler
from tests.server.llm.conftest import Llms

pytestmark = pytest.mark.timeout(900)
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello?"}]


@pytest.fixture
def project(client: TestClient, llms: Llms) -> dict:
    project = client.post("/api/projects", json={"name": "chat", "template": "empty"}).json()
    shutil.copytree(llms.q16, Path(project["path"]) / "models" / "tiny")
    return project


def _chat(client: TestClient, project: dict, **body) -> dict:
    response = client.post(f"/api/projects/{project['id']}/llm/chat",
                           json={"model": "models/tiny", "messages": MESSAGES, **body})
    assert response.status_code == 200, response.text
    return response.json()


def test_an_answer_is_the_greedy_generation_with_its_figures(client: TestClient, project: dict,
                                                              llms: Llms) -> None:
    answer = _chat(client, project, max_new_tokens=12, threads=1)
    model = LoadedModel(llms.q16, threads=1)
    expected = model.generate(model.prompt_ids(MESSAGES), 12, Sampler())
    assert answer["text"] == expected.text
    assert answer["generated_tokens"] == len(expected.tokens)
    assert answer["prompt_tokens"] == len(model.prompt_ids(MESSAGES))
    assert answer["finish_reason"] == expected.finish_reason
    assert answer["prefill_ms"] > 0 and answer["decode_tps"] > 0 and answer["ttft_ms"] == answer["prefill_ms"]


def test_streamed_tokens_arrive_on_the_tab_channel_and_the_model_stays_loaded(
    client: TestClient, project: dict
) -> None:
    chats = client.app.state.chats
    first = _chat(client, project, max_new_tokens=6, stream=True, chat_id="c1")
    assert chats.loaded() == [str(Path(project["path"]) / "models" / "tiny")]
    pid_before = [p.proc.pid for p in chats._processes]
    second = _chat(client, project, max_new_tokens=6, stream=True, chat_id="c2")
    assert [p.proc.pid for p in chats._processes] == pid_before
    assert second["text"] == first["text"]

    sub, _ = client.app.state.hub.subscribe(project["id"], since=0)
    events = [sub.queue.get_nowait() for _ in range(sub.queue.qsize())]
    llm = [e for e in events if e.channel == "llm"]
    tokens = [e.data["text"] for e in llm if e.type == "token" and e.data["chat_id"] == "c1"]
    assert "".join(tokens) == first["text"] and len(tokens) == first["generated_tokens"]
    done = [e.data for e in llm if e.type == "done" and e.data["chat_id"] == "c1"]
    assert done == [{"chat_id": "c1", **first}]


def test_a_folder_that_is_no_export_is_refused(client: TestClient, project: dict) -> None:
    Path(project["path"], "plain").mkdir()
    response = client.post(f"/api/projects/{project['id']}/llm/chat",
                           json={"model": "plain", "messages": MESSAGES})
    assert response.status_code == 422
    assert response.json()["code"] == "bad_llm_model"
    escape = client.post(f"/api/projects/{project['id']}/llm/chat",
                         json={"model": "../../outside", "messages": MESSAGES})
    assert escape.status_code in (403, 422) and escape.json()["code"] != "bad_llm_model"
