"""A person runs a project's pipeline budget from Source Control: each stage's limit is a row,
a failing stage is named, and the commit's badge in the history says which stage failed."""

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.device_bridge.test_pipeline import COINS
from tests.fakes.git_remotes import git
from tests.fakes.photos import photo
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser
BUDGET = """
[[pipeline_budget]]
pipeline = "chain/pipeline.toml"
inputs = ["coins.png"]
loops = 1
max_latency_ms = 100000
stages = { detect = 100000, read = 0.0001 }
"""


def test_a_pipeline_budget_shows_each_stage_and_the_failing_one_in_history(
    context: BrowserContext, live_server, coins_pipeline: Path
) -> None:
    project = create_project(live_server, "pipeline-budget")
    folder = Path(project["path"])
    (folder / "chain").mkdir()
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, folder / "chain" / path.name)
    shutil.copy(coins_pipeline, folder / "chain" / "pipeline.toml")
    shutil.copy(photo(COINS), folder / COINS)
    (folder / "mnnwb.toml").write_text(BUDGET.replace("read = 0.0001", "read = 100000"))
    git("init", "-q", "-b", "main", cwd=folder)
    git("config", "user.name", "Ada Lovelace", cwd=folder)
    git("config", "user.email", "ada@example.com", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "a pipeline within its budget", cwd=folder)
    good = git("rev-parse", "HEAD", cwd=folder).strip()

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    page.get_by_test_id("scm-run-checks").click()
    expect(page.get_by_test_id("checks-verdict")).to_have_text("all pass", timeout=60_000)

    (folder / "mnnwb.toml").write_text(BUDGET)
    git("commit", "-q", "-am", "a tighter budget for the recogniser", cwd=folder)
    bad = git("rev-parse", "HEAD", cwd=folder).strip()
    page.get_by_test_id("scm-run-checks").click()
    expect(page.get_by_test_id("checks-verdict")).to_have_text("failing", timeout=60_000)
    rows = page.get_by_test_id("check-result")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("chain/pipeline.toml")
    expect(rows.nth(0)).to_have_attribute("data-passed", "true")
    expect(rows.nth(1)).to_contain_text("chain/pipeline.toml › detect")
    expect(rows.nth(1)).to_have_attribute("data-passed", "true")
    expect(rows.nth(2)).to_contain_text("chain/pipeline.toml › read")
    expect(rows.nth(2)).to_have_attribute("data-passed", "false")
    # There is a last passing commit, but a pipeline is not a model to diff against it.
    expect(page.get_by_test_id("check-diff-last-passing")).to_have_count(0)
    page.get_by_test_id("scm-history").click()
    badge = page.locator(f"[data-testid=git-commit][data-sha='{good}']").get_by_test_id("check-badge")
    expect(badge).to_have_attribute("data-passed", "true")
    badge = page.locator(f"[data-testid=git-commit][data-sha='{bad}']").get_by_test_id("check-badge")
    expect(badge).to_have_attribute("data-passed", "false")
    expect(badge).to_have_attribute(
        "title", re.compile(r"^Budgets failed:\nchain/pipeline\.toml › read latency_ms \d"))
