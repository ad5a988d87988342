"""A person exports a model folder to MNN-LLM from the file tree, then chats with it."""

import shutil
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, expect

from tests.fakes.llm import Llms
from tests.waiting import wait_until
from tests.webui.workbench import create_project, open_project

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]


def test_export_a_folder_then_chat_and_benchmark_in_the_panel(context: BrowserContext, live_server,
                                                              llms: Llms) -> None:
    project = create_project(live_server, "llm")
    shutil.copytree(llms.source, Path(project["path"]) / "tiny")
    page = open_project(context, live_server, project)

    page.locator("[data-testid=tree-item][data-path='tiny']").click(button="right")
    page.get_by_test_id("menu-llm").click()
    export = page.get_by_test_id("llm-export")
    export.get_by_test_id("llm-bits").select_option("8")
    expect(export.get_by_test_id("llm-output")).to_have_value("tiny-mnn-q8")
    export.get_by_test_id("llm-export-run").click()
    status = page.get_by_test_id("llm-run-status")
    expect(status).to_have_attribute("data-status", "succeeded", timeout=600_000)
    expect(page.get_by_test_id("llm-export-result")).to_contain_text("qwen2")
    assert (Path(project["path"]) / "tiny-mnn-q8" / "llm.mnn").is_file()

    page.get_by_test_id("llm-open-export").click()
    chat = page.get_by_test_id("llm-chat")
    chat.get_by_test_id("llm-max-tokens").fill("12")
    chat.get_by_test_id("llm-input").fill("Hello, how are you today?")
    chat.get_by_test_id("llm-input").press("Enter")
    answer = chat.get_by_test_id("llm-turn-assistant")
    expect(answer).to_have_count(1, timeout=120_000)
    expect(answer.get_by_test_id("llm-figures")).to_contain_text("prompt tokens")
    expect(answer.get_by_test_id("llm-figures")).to_contain_text("decode")
    expect(chat.get_by_test_id("llm-turn-user")).to_have_text("Hello, how are you today?")

    bench = page.get_by_test_id("llm-bench")
    bench.get_by_test_id("llm-bench-lengths").fill("16,32")
    bench.get_by_test_id("llm-bench-run").click()
    expect(bench.get_by_test_id("llm-bench-table").locator("tbody tr")).to_have_count(2, timeout=300_000)

    # The transcript is kept with the panel: it is there again after a reload.
    state = f"{live_server.url}/api/projects/{project['id']}/ui-state"
    wait_until(lambda: "how are you today" in httpx.get(state, headers=live_server.auth).text,
               what="the transcript to be saved with the layout")
    page.reload()
    expect(page.get_by_test_id("llm-chat").get_by_test_id("llm-turn-assistant")).to_have_count(1)
