"""The chat API on a real exported model: answers, streamed tokens, a model kept loaded."""

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from device_bridge.llm.runtime import LoadedModel, Sampler
from server.api.services import services_of
from tests.fakes.llm import Llms, build_model
from tests.plugin.tools import wait_for_run

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
    chats = services_of(client.app).chats
    first = _chat(client, project, max_new_tokens=6, stream=True, chat_id="c1")
    assert chats.loaded() == [str(Path(project["path"]) / "models" / "tiny")]
    pid_before = [p.proc.pid for p in chats._processes]
    second = _chat(client, project, max_new_tokens=6, stream=True, chat_id="c2")
    assert [p.proc.pid for p in chats._processes] == pid_before
    assert second["text"] == first["text"]

    sub, _ = services_of(client.app).hub.subscribe(project["id"], since=0)
    events = [sub.queue.get_nowait() for _ in range(sub.queue.qsize())]
    llm = [e for e in events if e.channel == "llm"]
    tokens = [e.data["text"] for e in llm if e.type == "token" and e.data["chat_id"] == "c1"]
    # tokens less than 5 ms apart may come gathered in one event
    assert "".join(tokens) == first["text"] and len(tokens) <= first["generated_tokens"]
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


def test_an_embedding_export_answers_cosine_similarities(client: TestClient, project: dict) -> None:
    root = Path(project["path"])
    build_model(root / "Qwen3-Embedding-tiny", architecture="qwen3")
    started = client.post(f"/api/projects/{project['id']}/tools/llm-export",
                          json={"model_dir": "Qwen3-Embedding-tiny", "quant_bit": 16, "embedding": True})
    assert started.status_code == 202, started.text
    run = wait_for_run(client, started.json()["id"], timeout=600)
    assert run["status"] == "succeeded", run["error"]
    assert run["result"]["output"] == "Qwen3-Embedding-tiny-mnn-q16"

    texts = ["a phone runs the model", "a phone runs the model", "the weather is cold"]
    response = client.post(f"/api/projects/{project['id']}/llm/embed",
                           json={"model": "Qwen3-Embedding-tiny-mnn-q16", "texts": texts})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["dimensions"] == 64
    similarity = answer["similarity"]
    assert [round(similarity[i][i], 4) for i in range(3)] == [1.0, 1.0, 1.0]
    assert similarity[0][1] == pytest.approx(1.0, abs=1e-5)
    assert similarity[0][2] == similarity[2][0] and similarity[0][2] < 0.999


def test_the_embedding_flag_must_agree_with_the_folder_name(client: TestClient, project: dict,
                                                            llms: Llms) -> None:
    shutil.copytree(llms.source, Path(project["path"]) / "tiny-src")
    started = client.post(f"/api/projects/{project['id']}/tools/llm-export",
                          json={"model_dir": "tiny-src", "embedding": True, "output": "emb"})
    run = wait_for_run(client, started.json()["id"], timeout=600)
    assert run["status"] == "failed"
    assert "embedding model exactly when its name contains" in run["error"]
