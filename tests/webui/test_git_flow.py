"""The Git flow in a real browser: edit → see the change → diff → stage → commit → push, against
a real ``git daemon`` serving a bare repository on loopback."""

import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.fakes import models
from tests.fakes.git_remotes import GIT_ENV, bare_repo, dulwich_http, git, git_daemon
from tests.webui.conftest import ConsoleErrors
from tests.webui.workbench import create_project, expect_saved, open_file, open_project, replace_text, save

pytestmark = pytest.mark.browser

MESSAGE = "Describe the model in the README"
TEXT = "A tiny MLP, converted to MNN"


def _make_repository(folder: Path, remote_url: str | None) -> None:
    git("init", "-q", "-b", "main", cwd=folder)
    git("config", "user.name", "Ada Lovelace", cwd=folder)
    git("config", "user.email", "ada@example.com", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "Start the project", cwd=folder)
    if remote_url:
        git("remote", "add", "origin", remote_url, cwd=folder)


def git_bytes(folder: Path, spec: str) -> bytes:
    return subprocess.run(
        ["git", "show", spec], cwd=folder, env=GIT_ENV, capture_output=True, check=True
    ).stdout


def _file_row(page: Page, group: str, path: str):
    return page.locator(f"[data-testid=scm-file][data-group={group}][data-path='{path}']")


def _edit_and_save(page: Page, path: str, text: str) -> None:
    open_file(page, path)
    replace_text(page, path, text)
    save(page)
    expect_saved(page, path)


def test_edit_diff_stage_commit_push(context: BrowserContext, live_server, tmp_path: Path) -> None:
    remote = bare_repo(tmp_path / "served" / "model.git")
    project = create_project(live_server, "gitflow")
    folder = Path(project["path"])
    with git_daemon(remote.parent) as base_url:
        _make_repository(folder, base_url + "model.git")
        old_text = (folder / "README.md").read_text().splitlines()[0]
        page = open_project(context, live_server, project)
        expect(page.get_by_test_id("status-branch")).to_have_attribute("data-branch", "main")
        page.get_by_test_id("action-git").click()
        panel = page.get_by_test_id("scm-panel")
        expect(panel.get_by_test_id("scm-clean")).to_be_visible()

        _edit_and_save(page, "README.md", TEXT)
        row = _file_row(page, "unstaged", "README.md")
        expect(row).to_be_visible()
        expect(row.get_by_test_id("scm-badge")).to_have_text("M")
        expect(panel.get_by_test_id("scm-commit")).to_be_disabled()

        row.click()
        diff = page.locator("[data-testid=git-diff][data-path='README.md']")
        expect(diff.locator(".editor.original .view-lines")).to_contain_text(old_text)
        expect(diff.locator(".editor.modified .view-lines")).to_contain_text(TEXT)
        # Decorations come from the diff worker: without a working worker there are none.
        expect(diff.locator(".editor.modified .line-insert").first).to_be_visible()
        expect(diff.locator(".editor.original .line-delete").first).to_be_visible()
        page.screenshot(path=tmp_path / "source-control.png")

        row.hover()
        row.get_by_test_id("scm-stage").click()
        expect(_file_row(page, "staged", "README.md")).to_be_visible()
        expect(row).to_have_count(0)

        message = panel.get_by_test_id("scm-message")
        message.click()
        page.keyboard.type(MESSAGE)
        expect(panel.get_by_test_id("scm-commit")).to_be_enabled()
        page.keyboard.press("ControlOrMeta+Enter")
        expect(panel.get_by_test_id("scm-clean")).to_be_visible()
        expect(message).to_have_value("")
        assert git("log", "-1", "--format=%s", cwd=folder).strip() == MESSAGE

        panel.get_by_test_id("scm-push").click()
        expect(page.get_by_test_id("toast-info")).to_contain_text("Pushed main to origin")
        pushed = git("--git-dir", str(remote), "log", "-1", "--format=%s%n%an", "main").splitlines()
        assert pushed == [MESSAGE, "Ada Lovelace"]
        assert git("--git-dir", str(remote), "show", "main:README.md").strip() == TEXT


def _make_history(folder: Path) -> dict[str, str]:
    """main: Start → Tweak main → Merge feature (← Add feature) → Add weights; returns sha by subject."""
    git("init", "-q", "-b", "main", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "Start", cwd=folder)
    git("checkout", "-q", "-b", "feature", cwd=folder)
    (folder / "feat.py").write_text("x = 1\n")
    git("add", "feat.py", cwd=folder)
    git("commit", "-q", "-m", "Add feature", cwd=folder)
    git("checkout", "-q", "main", cwd=folder)
    (folder / "main.py").write_text("print('tweaked')\n")
    git("commit", "-q", "-am", "Tweak main", cwd=folder)
    git("merge", "-q", "--no-ff", "-m", "Merge feature", "feature", cwd=folder)
    (folder / "model.bin").write_bytes(bytes(range(256)) * 2)
    git("add", "model.bin", cwd=folder)
    git("commit", "-q", "-m", "Add weights", cwd=folder)
    log = git("log", "--format=%s%x09%H", cwd=folder).splitlines()
    return dict(line.split("\t") for line in log)


def _commit_row(page: Page, sha: str):
    return page.locator(f"[data-testid=git-commit][data-sha='{sha}']")


def test_history_binary_diff_and_a_stash_that_cannot_apply(
    context: BrowserContext, live_server, console_errors: ConsoleErrors
) -> None:
    console_errors.allow(r"409 .*/git/stashes/0/pop")  # the stash that cannot apply
    project = create_project(live_server, "history")
    folder = Path(project["path"])
    shas = _make_history(folder)
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    panel = page.get_by_test_id("scm-panel")
    expect(panel.get_by_test_id("scm-clean")).to_be_visible()

    # The graph: the merged branch's commit gets a lane of its own.
    panel.get_by_test_id("scm-history").click()
    expect(page.get_by_test_id("git-commit")).to_have_count(5)
    expect(_commit_row(page, shas["Add feature"])).to_have_attribute("data-lane", "1")
    for subject in ("Add weights", "Merge feature", "Tweak main", "Start"):
        expect(_commit_row(page, shas[subject])).to_have_attribute("data-lane", "0")
    _commit_row(page, shas["Merge feature"]).click()
    page.locator("[data-testid=git-commit-file][data-path='feat.py']").click()
    diff = page.locator("[data-testid=git-diff][data-path='feat.py']")
    expect(diff.locator(".editor.modified .view-lines")).to_contain_text("x = 1")

    # A binary change is described by size and blob id, never shown as text.
    (folder / "model.bin").write_bytes(bytes(range(256)) * 3)
    binary = _file_row(page, "unstaged", "model.bin")
    binary.click()
    expect(page.get_by_test_id("binary-old-size")).to_contain_text("512 B")
    expect(page.get_by_test_id("binary-new-size")).to_contain_text("768 B")
    new_id = git("hash-object", "model.bin", cwd=folder).strip()
    expect(page.get_by_test_id("binary-new-sha")).to_have_text(new_id)

    # Stash the change, change the same file again: popping must refuse, name it, keep the stash.
    panel.get_by_test_id("scm-stashes").locator(".scm-group-header").hover()
    panel.get_by_test_id("scm-stash-push").click()
    page.get_by_test_id("git-stash-message").fill("heavier weights")
    page.get_by_test_id("git-stash-ok").click()
    entry = panel.get_by_test_id("scm-stash-entry")
    expect(entry).to_contain_text("heavier weights")
    expect(panel.get_by_test_id("scm-clean")).to_be_visible()
    (folder / "model.bin").write_bytes(b"\0local")
    expect(binary).to_be_visible()
    entry.hover()
    entry.get_by_test_id("scm-stash-pop").click()
    expect(page.get_by_test_id("git-blocked-files")).to_have_text("model.bin")
    page.get_by_test_id("git-blocked-ok").click()
    expect(entry).to_have_count(1)
    assert "heavier weights" in git("stash", "list", cwd=folder)
    assert (folder / "model.bin").read_bytes() == b"\0local"


def test_initialize_stage_all_commit_and_discard(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "fresh")
    folder = Path(project["path"])
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    panel = page.get_by_test_id("scm-panel")
    panel.get_by_test_id("scm-init").click()
    untracked = panel.locator("[data-testid=scm-group][data-group=untracked]")
    expect(untracked.get_by_test_id("scm-file")).to_have_count(2)
    expect(page.get_by_test_id("status-branch")).to_have_attribute("data-branch", "main")
    git("config", "user.name", "Ada Lovelace", cwd=folder)
    git("config", "user.email", "ada@example.com", cwd=folder)

    untracked.locator(".scm-group-header").hover()
    untracked.get_by_test_id("scm-group-stage").click()
    staged = panel.locator("[data-testid=scm-group][data-group=staged]")
    expect(staged.get_by_test_id("scm-badge")).to_have_text(["A", "A"])
    panel.get_by_test_id("scm-message").fill("Start")
    panel.get_by_test_id("scm-commit").click()
    expect(panel.get_by_test_id("scm-clean")).to_be_visible()
    committed = (folder / "main.py").read_text()

    (folder / "main.py").write_text("broken = True\n")
    row = _file_row(page, "unstaged", "main.py")
    row.hover()
    row.get_by_test_id("scm-discard").click()
    page.get_by_test_id("confirm-cancel").click()
    assert (folder / "main.py").read_text() == "broken = True\n"
    row.hover()
    row.get_by_test_id("scm-discard").click()
    page.get_by_test_id("confirm-ok").click()
    expect(panel.get_by_test_id("scm-clean")).to_be_visible()
    assert (folder / "main.py").read_text() == committed


def test_a_group_of_thousands_of_files_shows_the_first_and_the_rest_on_request(
    context: BrowserContext, live_server
) -> None:
    project = create_project(live_server, "generated")
    folder = Path(project["path"])
    git("init", "-q", "-b", "main", cwd=folder)
    for n in range(1200):
        (folder / "data" / f"{n // 100:02d}").mkdir(parents=True, exist_ok=True)
        (folder / "data" / f"{n // 100:02d}" / f"sample{n:04d}.txt").write_text(f"{n}\n")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    untracked = page.locator("[data-testid=scm-group][data-group=untracked]")
    expect(untracked.locator(".scm-count")).to_have_text("1202")  # and the template's two files
    expect(untracked.get_by_test_id("scm-file")).to_have_count(500)
    expect(untracked.get_by_test_id("scm-show-all")).to_have_text("702 more — show all")
    untracked.get_by_test_id("scm-show-all").click()
    expect(untracked.get_by_test_id("scm-file")).to_have_count(1202)
    expect(untracked.get_by_test_id("scm-show-all")).to_have_count(0)


def _sign_in(page: Page, password: str, remember: bool = False) -> None:
    prompt = page.get_by_test_id("git-credentials")
    # A refused password asks again, with empty fields.
    expect(prompt.get_by_test_id("git-password")).to_have_value("")
    prompt.get_by_test_id("git-username").fill("ada")
    prompt.get_by_test_id("git-password").fill(password)
    if remember:
        prompt.get_by_test_id("git-remember").check()
    prompt.get_by_test_id("git-credentials-ok").click()


def _commit_with_git(folder: Path, path: str, text: str, message: str) -> None:
    (folder / path).write_text(text)
    git("add", path, cwd=folder)
    git("commit", "-q", "-m", message, cwd=folder)


def test_remotes_dialog_remembered_credentials_and_forget(
    context: BrowserContext, live_server, tmp_path: Path, console_errors: ConsoleErrors
) -> None:
    console_errors.allow(r"403 .*/git/push")  # the pushes the remote refuses until credentials fit
    remote = bare_repo(tmp_path / "auth.git")
    project = create_project(live_server, "signed")
    folder = Path(project["path"])
    _make_repository(folder, None)
    with dulwich_http({"auth.git": remote}, "ada", "s3cret-token") as (base_url, _):
        page = open_project(context, live_server, project)
        page.get_by_test_id("action-git").click()
        panel = page.get_by_test_id("scm-panel")
        panel.get_by_test_id("scm-more").click()
        page.get_by_test_id("scm-remotes").click()
        dialog = page.get_by_test_id("git-remotes-dialog")
        expect(dialog.get_by_test_id("git-remote-name")).to_have_value("origin")
        dialog.get_by_test_id("git-remote-url").fill(base_url + "auth.git")
        dialog.get_by_test_id("git-remote-add").click()
        expect(dialog.locator("[data-testid=git-remote][data-name=origin]")).to_contain_text(base_url)
        expect(dialog.get_by_test_id("git-remote-forget")).to_have_count(0)
        dialog.get_by_test_id("git-remotes-close").click()

        panel.get_by_test_id("scm-push").click()
        _sign_in(page, "wrong", remember=True)
        _sign_in(page, "s3cret-token", remember=True)
        expect(page.get_by_test_id("toast-info")).to_contain_text("Pushed main to origin")
        expect(page.get_by_test_id("git-credentials")).to_be_hidden()
        assert "s3cret" not in (folder / ".git" / "config").read_text()

        # A fresh page holds nothing in memory: the server's remembered credentials push.
        page.close()
        _commit_with_git(folder, "notes.md", "remembered\n", "Second commit")
        page = open_project(context, live_server, project)
        page.get_by_test_id("action-git").click()
        panel = page.get_by_test_id("scm-panel")
        panel.get_by_test_id("scm-push").click()
        expect(page.get_by_test_id("toast-info").last).to_contain_text("Pushed main to origin")
        expect(page.get_by_test_id("git-credentials")).to_have_count(0)
        assert git("--git-dir", str(remote), "log", "-1", "--format=%s", "main").strip() == "Second commit"

        panel.get_by_test_id("scm-more").click()
        page.get_by_test_id("scm-remotes").click()
        dialog = page.get_by_test_id("git-remotes-dialog")
        dialog.get_by_test_id("git-remote-forget").click()
        expect(dialog.get_by_test_id("git-remote-forget")).to_have_count(0)
        dialog.get_by_test_id("git-remotes-close").click()
        panel.get_by_test_id("scm-push").click()
        expect(page.get_by_test_id("git-credentials")).to_be_visible()
        page.get_by_test_id("git-credentials-cancel").click()


def test_amend_and_delete_an_unmerged_branch(
    context: BrowserContext, live_server, console_errors: ConsoleErrors
) -> None:
    console_errors.allow(r"409 .*/git/branches/experiment\?force=false")  # unmerged: asks to force
    project = create_project(live_server, "branches")
    folder = Path(project["path"])
    _make_repository(folder, None)
    git("checkout", "-q", "-b", "experiment", cwd=folder)
    _commit_with_git(folder, "idea.py", "x = 1\n", "Try an idea")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    panel = page.get_by_test_id("scm-panel")
    expect(page.get_by_test_id("status-branch")).to_have_attribute("data-branch", "experiment")

    # Amending with nothing staged rewords the last commit; its message is offered to edit.
    panel.get_by_test_id("scm-amend").check()
    message = panel.get_by_test_id("scm-message")
    expect(message).to_have_value("Try an idea")
    message.fill("Try a better idea")
    panel.get_by_test_id("scm-commit").click()
    expect(message).to_have_value("")
    expect(panel.get_by_test_id("scm-amend")).not_to_be_checked()
    assert git("log", "--format=%s", cwd=folder).splitlines() == ["Try a better idea", "Start the project"]

    page.get_by_test_id("status-branch").click()
    page.locator("[data-testid=branch-item][data-name=main]").click()
    expect(page.get_by_test_id("status-branch")).to_have_attribute("data-branch", "main")
    page.get_by_test_id("status-branch").click()
    item = page.locator("[data-testid=branch-item][data-name=experiment]")
    item.hover()
    item.get_by_test_id("branch-delete").click()
    page.get_by_test_id("confirm-ok").click()
    # Git refuses an unmerged branch; the second question offers to force it.
    expect(page.get_by_test_id("confirm-dialog")).to_contain_text("not merged")
    expect(page.get_by_test_id("confirm-ok")).to_have_text("Force delete")
    page.get_by_test_id("confirm-ok").click()
    expect(page.get_by_test_id("confirm-dialog")).to_have_count(0)
    expect(page.get_by_test_id("status-branch")).to_be_enabled()  # disabled while deleting
    page.get_by_test_id("status-branch").click()
    expect(page.get_by_test_id("branch-item")).to_have_count(1)
    assert git("branch", "--format=%(refname:short)", cwd=folder).split() == ["main"]

    page.get_by_test_id("branch-create").click()
    page.get_by_test_id("prompt-input").fill("experiment")
    page.get_by_test_id("prompt-ok").click()
    expect(page.get_by_test_id("status-branch")).to_have_attribute("data-branch", "experiment")
    assert git("branch", "--show-current", cwd=folder).strip() == "experiment"


def test_model_summary_of_versions_not_on_disk(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "models")
    folder = Path(project["path"])
    models.conv_net(folder / "net.onnx", size=32)
    _make_repository(folder, None)
    models.conv_net(folder / "net.onnx", size=24)
    git("add", "net.onnx", cwd=folder)
    models.dynamic_batch_net(folder / "net.onnx")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    # Index vs HEAD: neither side is the file on disk; both are inspected from Git.
    _file_row(page, "staged", "net.onnx").click()
    expect(page.get_by_test_id("model-old-inputs")).to_have_text("input [1, 3, 32, 32]", timeout=30_000)
    expect(page.get_by_test_id("model-new-inputs")).to_have_text("input [1, 3, 24, 24]", timeout=30_000)
    download = page.get_by_test_id("binary-old-download")
    with page.expect_download() as got:
        download.click()
    assert Path(got.value.path()).read_bytes() == git_bytes(folder, "HEAD:net.onnx")
