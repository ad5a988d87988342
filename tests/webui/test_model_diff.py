"""A person opens a model diff from the Git diff of a model file: fp32 committed, int8 on disk."""

import shutil
from pathlib import Path

from playwright.sync_api import BrowserContext, expect

from tests.fakes.git_remotes import git
from tests.plugin.resources import ConvNetModels
from tests.webui.test_device_debug import build_tiny_model
from tests.webui.workbench import create_project, open_project


def test_model_diff_from_the_git_diff(context: BrowserContext, live_server,
                                      conv_net_models: ConvNetModels, conv_net_int8: Path) -> None:
    project = create_project(live_server, "diffs")
    folder = Path(project["path"])
    fp32, int8 = conv_net_models.mnn.read_bytes(), conv_net_int8.read_bytes()
    (folder / "model.mnn").write_bytes(fp32)
    git("init", "-q", "-b", "main", cwd=folder)
    git("config", "user.name", "Ada Lovelace", cwd=folder)
    git("config", "user.email", "ada@example.com", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "fp32 model", cwd=folder)
    (folder / "model.mnn").write_bytes(int8)

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    page.locator("[data-testid=scm-file][data-group=unstaged][data-path='model.mnn']").click()
    page.get_by_test_id("open-model-diff").click()

    panel = page.get_by_test_id("model-diff-panel")
    expect(panel).to_have_attribute("data-status", "succeeded", timeout=60_000)
    expect(panel.get_by_test_id("diff-output")).to_contain_text("output")
    # The three convolutions are int8 in B: the graph says so, and their tensors drift.
    expect(panel.get_by_test_id("diff-changed-op")).to_have_count(3)
    expect(panel.get_by_test_id("diff-changed-op").first).to_contain_text("(float, ")
    expect(panel.get_by_test_id("diff-worst-row").first).to_be_visible()
    # Sorting by cosine puts the most changed layer first.
    panel.get_by_test_id("diff-sort-cosine").click()
    expect(panel.get_by_test_id("diff-sort-cosine")).to_have_attribute("aria-sort", "ascending")
    first = float(panel.get_by_test_id("diff-layer-cosine").first.inner_text())
    assert 0.9 < first < 1.0
    sizes = panel.get_by_test_id("diff-size-ratio").inner_text()
    assert float(sizes.rstrip("×")) < 1.0  # int8 is smaller


def test_budgets_run_from_source_control(context: BrowserContext, live_server,
                                         conv_net_models: ConvNetModels) -> None:
    project = create_project(live_server, "budgets")
    folder = Path(project["path"])
    shutil.copyfile(conv_net_models.mnn, folder / "model.mnn")
    (folder / "mnnwb.toml").write_text('[[budget]]\nmodel = "model.mnn"\nmax_size_mb = 1\n')
    git("init", "-q", "-b", "main", cwd=folder)
    git("config", "user.name", "Ada Lovelace", cwd=folder)
    git("config", "user.email", "ada@example.com", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "model within budget", cwd=folder)
    head = git("rev-parse", "HEAD", cwd=folder).strip()

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    page.get_by_test_id("scm-run-checks").click()
    row = page.locator("[data-testid=check-result][data-metric=size_mb]")
    expect(row).to_have_attribute("data-passed", "true", timeout=30_000)
    expect(page.get_by_test_id("checks-verdict")).to_have_text("all pass")
    page.get_by_test_id("scm-history").click()
    commit = page.locator(f"[data-testid=git-commit][data-sha='{head}']")
    expect(commit.get_by_test_id("check-badge")).to_have_attribute("data-passed", "true")

    # A too-small limit fails, naming the metric, the limit and the value.
    (folder / "mnnwb.toml").write_text('[[budget]]\nmodel = "model.mnn"\nmax_size_mb = 0.001\n')
    page.get_by_test_id("scm-run-checks").click()
    expect(row).to_have_attribute("data-passed", "false", timeout=30_000)
    expect(row).to_contain_text("0.001")
    expect(page.get_by_test_id("checks-verdict")).to_have_text("failing")
    page.get_by_test_id("check-diff-last-passing").click()
    diff = page.get_by_test_id("model-diff-panel")
    expect(diff).to_have_attribute("data-status", "succeeded", timeout=60_000)
    expect(diff.get_by_test_id("diff-graph")).to_have_text("The two graphs have the same ops.")
    expect(diff.get_by_test_id("diff-worst")).to_contain_text("No layer differs.")


def test_model_diff_with_head_is_offered_only_where_there_is_a_head(
    context: BrowserContext, live_server, tmp_path: Path
) -> None:
    project = create_project(live_server, "no-history")
    folder = Path(project["path"])
    build_tiny_model(folder / "tiny.mnn")
    page = open_project(context, live_server, project)
    item = page.locator("[data-testid=tree-item][data-path='tiny.mnn']")
    item.click(button="right")
    expect(page.get_by_test_id("menu-diff-with")).to_be_visible()
    expect(page.get_by_test_id("menu-diff-head")).to_have_count(0)  # no Git here
    page.keyboard.press("Escape")

    git("init", "-q", "-b", "main", cwd=folder)
    git("config", "user.name", "Ada Lovelace", cwd=folder)
    git("config", "user.email", "ada@example.com", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "a model", cwd=folder)
    page.reload()
    item.click(button="right")
    page.get_by_test_id("menu-diff-head").click()
    panel = page.get_by_test_id("model-diff-panel")
    expect(panel).to_have_attribute("data-status", "succeeded", timeout=60_000)
