"""A person picks a paired device in the MNN-LLM panel, chats with the model there and stops a
long answer; the answer's figures say where it ran."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.conftest import LiveServer
from tests.fakes.llm import Llms
from tests.webui.test_device_debug import device as board  # noqa: F401 - the paired agent fixture
from tests.webui.workbench import create_project, open_project

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]


@pytest.fixture
def project(live_server: LiveServer, llms: Llms) -> Iterator[dict]:
    created = create_project(live_server, "llm-device")
    shutil.copytree(llms.q4, Path(created["path"]) / "models" / "tiny")
    yield created


def test_chat_on_a_paired_device_and_stop_a_long_answer(
    context: BrowserContext, live_server: LiveServer, project: dict, board: dict  # noqa: F811
) -> None:
    page = open_project(context, live_server, project)
    page.locator("[data-testid=tree-item][data-path='models']").click()
    page.locator("[data-testid=tree-item][data-path='models/tiny']").click(button="right")
    page.get_by_test_id("menu-llm").click()
    chat = page.get_by_test_id("llm-chat")
    chat.get_by_test_id("device-picker").select_option(board["id"])
    expect(page.get_by_test_id("llm-bench").get_by_test_id("device-picker")).to_have_value(board["id"])

    chat.get_by_test_id("llm-max-tokens").fill("12")
    chat.get_by_test_id("llm-input").fill("Hello?")
    chat.get_by_test_id("llm-input").press("Enter")
    answer = chat.get_by_test_id("llm-turn-assistant")
    expect(answer).to_have_count(1, timeout=120_000)
    expect(answer.get_by_test_id("llm-figures")).to_contain_text("on board")
    expect(answer.get_by_test_id("llm-figures")).to_contain_text("decode")

    # A greedy answer of a model this small runs in MNN's own loop, done in well under a second;
    # sampled with a temperature it is made token by token, long enough to stop.
    chat.get_by_test_id("llm-max-tokens").fill("4000")
    chat.get_by_test_id("llm-sampler").select_option("temperature")
    chat.get_by_test_id("llm-input").fill("Tell me everything.")
    chat.get_by_test_id("llm-input").press("Enter")
    expect(chat.get_by_test_id("llm-streaming")).not_to_have_text("…", timeout=120_000)
    chat.get_by_test_id("llm-stop").click()
    expect(answer).to_have_count(2, timeout=120_000)
    expect(answer.nth(1).get_by_test_id("llm-figures")).to_contain_text("stopped")
