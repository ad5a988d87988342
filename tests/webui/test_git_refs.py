"""Git in a real browser: the first commit asks for an identity; remote branches and tags are in
the branch picker and on the history graph; a pull that conflicts is resolved in the merge editor."""

from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.fakes.git_remotes import bare_repo, git
from tests.webui.workbench import create_project, open_file, open_project

pytestmark = pytest.mark.browser


@pytest.fixture
def no_git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The server (in this process) finds no name or email in any git config."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)


def test_the_first_commit_asks_for_a_name_and_email(
    context: BrowserContext, live_server, no_git_identity: None, console_errors
) -> None:
    console_errors.allow(r"422 .*/git/commit")  # the commit that finds no identity, before the dialog
    project = create_project(live_server, "identity")
    folder = Path(project["path"])
    git("init", "-q", "-b", "main", cwd=folder)
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    panel = page.get_by_test_id("scm-panel")
    untracked = panel.locator("[data-testid=scm-group][data-group=untracked]")
    untracked.locator(".scm-group-header").hover()
    untracked.get_by_test_id("scm-group-stage").click()
    panel.get_by_test_id("scm-message").fill("Start")
    panel.get_by_test_id("scm-commit").click()

    dialog = page.get_by_test_id("git-identity-dialog")
    dialog.get_by_test_id("git-identity-name").fill("Grace Hopper")
    dialog.get_by_test_id("git-identity-email").fill("grace@example.com")
    dialog.get_by_test_id("git-identity-save").click()
    expect(panel.get_by_test_id("scm-clean")).to_be_visible()
    assert git("log", "-1", "--format=%an <%ae>", cwd=folder).strip() == "Grace Hopper <grace@example.com>"

    # Shown and editable afterwards from the panel's menu.
    panel.get_by_test_id("scm-more").click()
    page.get_by_test_id("scm-identity").click()
    expect(dialog.get_by_test_id("git-identity-name")).to_have_value("Grace Hopper")
    expect(dialog.get_by_test_id("git-identity-email")).to_have_value("grace@example.com")


def test_remote_branches_and_tags_in_the_picker_and_the_history(
    context: BrowserContext, live_server, tmp_path: Path
) -> None:
    project = create_project(live_server, "refs")
    folder = Path(project["path"])
    git("init", "-q", "-b", "main", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "Start", cwd=folder)
    git("tag", "-a", "v1.0", "-m", "first release", cwd=folder)
    remote = bare_repo(tmp_path / "origin.git")
    git("remote", "add", "origin", remote.as_uri(), cwd=folder)
    git("push", "-q", "origin", "main", cwd=folder)
    git("checkout", "-q", "-b", "feature", cwd=folder)
    (folder / "feature.py").write_text("x = 1\n")
    git("add", "feature.py", cwd=folder)
    git("commit", "-q", "-m", "Feature work", cwd=folder)
    git("push", "-q", "origin", "feature", cwd=folder)
    git("checkout", "-q", "main", cwd=folder)
    git("branch", "-q", "-D", "feature", cwd=folder)

    page = open_project(context, live_server, project)
    branch = page.get_by_test_id("status-branch")
    expect(branch).to_have_attribute("data-branch", "main")
    branch.click()
    page.locator("[data-testid=ref-item][data-kind=remote][data-name='origin/feature']").click()
    expect(branch).to_have_attribute("data-branch", "feature")
    assert git("rev-parse", "--abbrev-ref", "feature@{upstream}", cwd=folder).strip() == "origin/feature"

    page.get_by_test_id("action-git").click()
    page.get_by_test_id("scm-panel").get_by_test_id("scm-history").click()
    start = git("rev-parse", "main", cwd=folder).strip()
    start_row = page.locator(f"[data-testid=git-commit][data-sha='{start}']")
    labels = start_row.get_by_test_id("git-ref-label")
    expect(labels).to_have_text(["main", "origin/main", "⌂ v1.0"])
    head = git("rev-parse", "HEAD", cwd=folder).strip()
    tip = page.locator(f"[data-testid=git-commit][data-sha='{head}']")
    expect(tip.get_by_test_id("git-ref-label")).to_have_text(["feature", "origin/feature"])

    branch.click()
    page.locator("[data-testid=ref-item][data-kind=tag][data-name='v1.0']").click()
    expect(branch).to_have_attribute("data-branch", "")
    expect(labels).to_have_text(["HEAD", "main", "origin/main", "⌂ v1.0"])
    assert git("rev-parse", "HEAD", cwd=folder).strip() == start


def test_a_conflicting_pull_is_resolved_in_the_merge_editor(
    context: BrowserContext, live_server, tmp_path: Path
) -> None:
    project = create_project(live_server, "merge")
    folder = Path(project["path"])
    git("init", "-q", "-b", "main", cwd=folder)
    git("config", "user.name", "Ada Lovelace", cwd=folder)
    git("config", "user.email", "ada@example.com", cwd=folder)
    (folder / "notes.txt").write_text("one\ntwo\nthree\n")
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "Start", cwd=folder)
    remote = bare_repo(tmp_path / "origin.git")
    git("remote", "add", "origin", remote.as_uri(), cwd=folder)
    git("push", "-q", "-u", "origin", "main", cwd=folder)
    other = tmp_path / "other"
    git("clone", "-q", remote.as_uri(), str(other))
    (other / "notes.txt").write_text("one\ntwo (theirs)\nthree\n")
    git("commit", "-q", "-am", "Theirs", cwd=other)
    git("push", "-q", "origin", "main", cwd=other)
    (folder / "notes.txt").write_text("one\ntwo (ours)\nthree\n")
    git("commit", "-q", "-am", "Ours", cwd=folder)

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    panel = page.get_by_test_id("scm-panel")
    panel.get_by_test_id("scm-pull").click()
    row = panel.locator("[data-testid=scm-file][data-group=conflicted][data-path='notes.txt']")
    row.click()
    assert "UU notes.txt" in git("status", "--porcelain", cwd=folder)

    merge = page.locator("[data-testid=git-merge][data-path='notes.txt']")
    expect(merge.get_by_test_id("git-merge-theirs")).to_contain_text("two (theirs)")
    expect(merge.get_by_test_id("git-merge-ours")).to_contain_text("two (ours)")
    expect(merge.get_by_test_id("git-merge-resolve")).to_be_disabled()
    conflict = merge.get_by_test_id("git-merge-conflict")
    expect(conflict).to_have_count(1)
    conflict.get_by_test_id("git-merge-accept-theirs").click()
    expect(merge.get_by_test_id("git-merge-result")).to_contain_text("two (theirs)")
    merge.get_by_test_id("git-merge-resolve").click()
    expect(page.get_by_test_id("git-merge-done")).to_be_visible()
    assert git("status", "--porcelain", cwd=folder).splitlines() == ["M  notes.txt"]

    panel.get_by_test_id("scm-message").fill("Merge origin/main")
    panel.get_by_test_id("scm-commit").click()
    expect(panel.get_by_test_id("scm-clean")).to_be_visible()
    assert git("status", "--porcelain", cwd=folder) == ""
    assert len(git("log", "-1", "--format=%P", cwd=folder).split()) == 2
    assert (folder / "notes.txt").read_text() == "one\ntwo (theirs)\nthree\n"


def test_blame_of_the_active_file(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "blame")
    folder = Path(project["path"])
    git("init", "-q", "-b", "main", cwd=folder)
    (folder / "notes.txt").write_text("first\nsecond\n")
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "Write two lines", cwd=folder)
    (folder / "notes.txt").write_text("first\nsecond, edited\nthird\n")
    git("commit", "-q", "-am", "Edit the second line", cwd=folder)
    old, new = git("log", "--format=%H", cwd=folder).split()[::-1]

    page = open_project(context, live_server, project)
    open_file(page, "notes.txt")
    page.get_by_test_id("action-git").click()
    page.get_by_test_id("scm-panel").get_by_test_id("scm-more").click()
    page.get_by_test_id("scm-blame").click()
    blame = page.locator("[data-testid=git-blame][data-path='notes.txt']")
    expect(blame).to_have_attribute("data-commits", "2")
    gutter = blame.locator(".margin-view-overlays")
    expect(gutter).to_contain_text(old[:7])
    expect(gutter).to_contain_text(new[:7])
    blame.locator(".view-line").filter(has_text="third").click()
    expect(blame.get_by_test_id("git-blame-commit")).to_contain_text("Edit the second line")
