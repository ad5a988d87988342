"""A person picks a paired device in the MNN-LLM panel, chats with the model there and stops a
long answer; the answer's figures say where it ran."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Locator, expect
from playwright.sync_api import Error as PlaywrightError

from tests.conftest import LiveServer
from tests.fakes.llm import Llms
from tests.waiting import wait_until
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
    stopped = _stop_a_long_answer(chat)
    expect(stopped.get_by_test_id("llm-figures")).to_contain_text("on board")


def _stop_a_long_answer(chat: Locator) -> Locator:
    """Asks for a long sampled answer and presses Stop once its first tokens show; the stopped
    answer. A sampled answer may draw the end token before the stop reaches it (a busy machine
    makes that likelier): then it asks again, up to five times."""
    answers, streaming = chat.get_by_test_id("llm-turn-assistant"), chat.get_by_test_id("llm-streaming")
    for turns in range(2, 7):
        chat.get_by_test_id("llm-input").fill("Tell me everything.")
        chat.get_by_test_id("llm-input").press("Enter")
        wait_until(lambda: answers.count() == turns  # noqa: B023 - called within this turn
                   or any(text != "…" for text in streaming.all_inner_texts()),  # noqa: B023
                   timeout=120, what="the answer's first tokens")
        if answers.count() < turns:
            try:
                chat.get_by_test_id("llm-stop").click(timeout=10_000)
            except PlaywrightError:
                assert answers.count() == turns, "Stop could not be pressed while the answer ran"
        expect(answers).to_have_count(turns, timeout=120_000)
        answer = answers.nth(turns - 1)
        if answer.get_by_test_id("llm-figures").inner_text().strip().endswith("· stopped"):
            return answer
    raise AssertionError("five sampled answers each ended before the stop reached them")
