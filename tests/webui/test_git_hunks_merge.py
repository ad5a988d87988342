"""Git as a person uses it in the browser: one hunk of two staged from the diff editor (then
lines unstaged and a hunk discarded), and two branches merged with a conflict resolved in the
merge editor."""

from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.fakes.git_remotes import bare_repo, git
from tests.webui.workbench import create_project, editor_lines, open_file, open_project, tab

pytestmark = pytest.mark.browser

OLD = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
NEW = "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n"


def _repository(folder: Path, text: str) -> None:
    git("init", "-q", "-b", "main", cwd=folder)
    git("config", "user.name", "Ada Lovelace", cwd=folder)
    git("config", "user.email", "ada@example.com", cwd=folder)
    (folder / "notes.txt").write_text(text)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "Start", cwd=folder)


def _row(page: Page, group: str, path: str):
    return page.locator(f"[data-testid=scm-file][data-group={group}][data-path='{path}']")


def _show(folder: Path, spec: str) -> str:
    return git("show", spec, cwd=folder)


def test_stage_one_hunk_of_two_unstage_a_line_and_discard_a_hunk(
    context: BrowserContext, live_server
) -> None:
    project = create_project(live_server, "hunks")
    folder = Path(project["path"])
    _repository(folder, OLD)
    (folder / "notes.txt").write_text(NEW)

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    _row(page, "unstaged", "notes.txt").click()
    work = page.locator("[data-testid=git-diff][data-path='notes.txt'][data-staged=false]")
    expect(work.get_by_test_id("git-hunk-bar")).to_have_attribute("data-hunks", "2")
    # The diff opens with the cursor on its first change: Stage Hunk takes that one alone.
    work.get_by_test_id("diff-stage-hunk").click()
    expect(_row(page, "staged", "notes.txt")).to_be_visible()
    expect(_row(page, "unstaged", "notes.txt")).to_be_visible()
    expect(work.get_by_test_id("git-hunk-bar")).to_have_attribute("data-hunks", "1")
    assert _show(folder, ":notes.txt") == OLD.replace("one", "ONE")
    assert (folder / "notes.txt").read_text() == NEW
    assert git("diff", "--cached", "--numstat", cwd=folder) == "1\t1\tnotes.txt\n"
    assert git("diff", "--numstat", cwd=folder) == "1\t1\tnotes.txt\n"

    # The staged side: select the changed line and unstage it.
    _row(page, "staged", "notes.txt").click()
    staged = page.locator("[data-testid=git-diff][data-path='notes.txt'][data-staged=true]")
    expect(staged.get_by_test_id("git-hunk-bar")).to_have_attribute("data-hunks", "1")
    staged.locator(".editor.modified .view-line").first.click()
    page.keyboard.press("Home")
    page.keyboard.press("Shift+End")
    staged.get_by_test_id("diff-unstage-lines").click()
    expect(_row(page, "staged", "notes.txt")).to_have_count(0)
    assert _show(folder, ":notes.txt") == OLD

    # Back in the work tree's diff, the cursor's hunk is discarded after asking.
    _row(page, "unstaged", "notes.txt").click()
    expect(work.get_by_test_id("git-hunk-bar")).to_have_attribute("data-hunks", "2")
    work.locator(".editor.modified .view-line").nth(7).click()
    work.get_by_test_id("diff-discard-hunk").click()
    expect(page.get_by_test_id("confirm-dialog")).to_contain_text("cannot be undone")
    page.get_by_test_id("confirm-ok").click()
    expect(work.get_by_test_id("git-hunk-bar")).to_have_attribute("data-hunks", "1")
    assert (folder / "notes.txt").read_text() == OLD.replace("one", "ONE")


def test_merge_two_branches_with_a_conflict_and_resolve_it(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "merging")
    folder = Path(project["path"])
    _repository(folder, "one\ntwo\nthree\n")
    git("checkout", "-q", "-b", "feature", cwd=folder)
    (folder / "notes.txt").write_text("one\ntwo (feature)\nthree\n")
    git("commit", "-q", "-am", "Feature", cwd=folder)
    git("checkout", "-q", "main", cwd=folder)
    (folder / "notes.txt").write_text("one\ntwo (main)\nthree\n")
    git("commit", "-q", "-am", "Main", cwd=folder)
    main = git("rev-parse", "HEAD", cwd=folder).strip()
    feature = git("rev-parse", "feature", cwd=folder).strip()

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    panel = page.get_by_test_id("scm-panel")
    expect(page.get_by_test_id("status-branch")).to_have_attribute("data-branch", "main")
    page.get_by_test_id("status-branch").click()
    item = page.locator("[data-testid=branch-item][data-name=feature]")
    item.hover()
    item.get_by_test_id("branch-merge").click()

    merge = page.locator("[data-testid=git-merge][data-path='notes.txt']")
    expect(merge.get_by_test_id("git-merge-conflict")).to_have_count(1)
    assert git("status", "--porcelain", cwd=folder) == "UU notes.txt\n"
    expect(_row(page, "conflicted", "notes.txt")).to_be_visible()
    merge.get_by_test_id("git-merge-accept-both").click()
    expect(merge.get_by_test_id("git-merge-result")).to_contain_text("two (feature)")
    merge.get_by_test_id("git-merge-resolve").click()
    expect(page.get_by_test_id("git-merge-done")).to_be_visible()

    message = panel.get_by_test_id("scm-message")
    expect(message).to_have_value("Merge branch 'feature'")
    panel.get_by_test_id("scm-commit").click()
    expect(panel.get_by_test_id("scm-clean")).to_be_visible()
    assert git("log", "-1", "--format=%P%n%s", cwd=folder).splitlines() == [
        f"{main} {feature}", "Merge branch 'feature'"]
    assert (folder / "notes.txt").read_text() == "one\ntwo (main)\ntwo (feature)\nthree\n"

    # Merging it again has nothing to do.
    page.get_by_test_id("status-branch").click()
    item = page.locator("[data-testid=branch-item][data-name=feature]")
    item.hover()
    item.get_by_test_id("branch-merge").click()
    expect(page.get_by_test_id("toast-info")).to_contain_text("Already up to date")


def test_cherry_pick_a_commit_of_another_branch_then_revert_it(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "picking")
    folder = Path(project["path"])
    _repository(folder, "one\n")
    git("checkout", "-q", "-b", "feature", cwd=folder)
    (folder / "extra.txt").write_text("extra\n")
    git("add", "extra.txt", cwd=folder)
    git("commit", "-q", "--author", "Grace Hopper <grace@example.com>", "-m", "Add extra", cwd=folder)
    git("checkout", "-q", "main", cwd=folder)
    feature = git("rev-parse", "feature", cwd=folder).strip()

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    page.get_by_test_id("scm-history").click()
    history = page.get_by_test_id("git-history")
    history.get_by_test_id("history-all").click()
    history.locator(f"[data-testid=git-commit][data-sha='{feature}']").click()
    expect(page.locator(f"[data-testid=git-commit-detail][data-sha='{feature}']")).to_be_visible()
    page.get_by_test_id("git-cherry-pick").click()
    expect(page.get_by_test_id("toast-info")).to_contain_text(f"Cherry-picked {feature[:7]}")
    assert git("log", "-1", "--format=%s|%an", "main", cwd=folder).strip() == "Add extra|Grace Hopper"
    assert (folder / "extra.txt").read_text() == "extra\n"
    picked = git("rev-parse", "main", cwd=folder).strip()

    history.get_by_test_id("history-current").click()
    history.locator(f"[data-testid=git-commit][data-sha='{picked}']").click()
    expect(page.locator(f"[data-testid=git-commit-detail][data-sha='{picked}']")).to_be_visible()
    page.get_by_test_id("git-revert").click()
    expect(page.get_by_test_id("toast-info").last).to_contain_text(f"Reverted {picked[:7]}")
    assert git("log", "-1", "--format=%s", "main", cwd=folder).strip() == 'Revert "Add extra"'
    assert not (folder / "extra.txt").exists()
    assert git("status", "--porcelain", cwd=folder) == ""


def test_tag_a_commit_push_the_tag_and_delete_it(
    context: BrowserContext, live_server, tmp_path: Path
) -> None:
    project = create_project(live_server, "tagging")
    folder = Path(project["path"])
    _repository(folder, "one\n")
    remote = bare_repo(tmp_path / "origin.git")
    git("remote", "add", "origin", remote.as_uri(), cwd=folder)
    git("push", "-q", "origin", "main", cwd=folder)
    head = git("rev-parse", "HEAD", cwd=folder).strip()

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    page.get_by_test_id("scm-history").click()
    page.locator(f"[data-testid=git-commit][data-sha='{head}']").click()
    page.get_by_test_id("git-tag-create").click()
    page.get_by_test_id("prompt-input").fill("v1.0")
    page.get_by_test_id("prompt-ok").click()
    expect(page.get_by_test_id("toast-info")).to_contain_text("as v1.0")
    assert git("rev-parse", "v1.0", cwd=folder).strip() == head
    expect(page.locator("[data-testid=git-ref-label][data-kind=tag]")).to_have_text("⌂ v1.0")

    page.get_by_test_id("status-branch").click()
    tag = page.locator("[data-testid=ref-item][data-kind=tag][data-name='v1.0']")
    tag.hover()
    tag.get_by_test_id("tag-push").click()
    expect(page.get_by_test_id("toast-info").last).to_contain_text("Pushed tag v1.0 to origin")
    assert git("--git-dir", str(remote), "rev-parse", "v1.0").strip() == head

    page.get_by_test_id("status-branch").click()
    tag.hover()
    tag.get_by_test_id("tag-delete").click()
    page.get_by_test_id("confirm-ok").click()
    expect(page.locator("[data-testid=git-ref-label][data-kind=tag]")).to_have_count(0)
    assert git("tag", "-l", cwd=folder) == ""
    assert git("--git-dir", str(remote), "tag", "-l").strip() == "v1.0"  # the remote keeps it


def test_change_markers_in_the_editor_open_the_change_inline(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "markers")
    folder = Path(project["path"])
    _repository(folder, OLD)
    (folder / "notes.txt").write_text(NEW.replace("four\n", "four\nfour and a half\n"))

    page = open_project(context, live_server, project)
    open_file(page, "notes.txt")
    editor = page.locator("[data-testid=editor][data-path='notes.txt']")
    expect(editor.locator(".git-gutter-modified")).to_have_count(2)
    expect(editor.locator(".git-gutter-added")).to_have_count(1)

    editor.locator(".git-gutter-modified").first.click()
    inline = editor.get_by_test_id("git-inline-diff")
    expect(inline).to_have_attribute("data-kind", "modified")
    expect(inline.locator(".git-inline-old")).to_have_text(["one"])
    inline.get_by_test_id("git-inline-stage").click()
    expect(inline).to_have_count(0)
    expect(editor.locator(".git-gutter-modified")).to_have_count(1)
    assert _show(folder, ":notes.txt") == OLD.replace("one", "ONE")

    # Revert Hunk is an edit of the buffer: the added line goes, Undo brings it back.
    editor.locator(".git-gutter-added").click()
    expect(inline).to_have_attribute("data-kind", "added")
    inline.get_by_test_id("git-inline-revert").click()
    expect(editor.locator(".git-gutter-added")).to_have_count(0)
    expect(editor_lines(page, "notes.txt")).not_to_contain_text("four and a half")
    expect(tab(page, "notes.txt")).to_have_attribute("data-state", "dirty")


def test_stage_one_of_two_added_lines(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "lines")
    folder = Path(project["path"])
    _repository(folder, "a\nb\n")
    (folder / "notes.txt").write_text("a\nx\ny\nb\n")

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    _row(page, "unstaged", "notes.txt").click()
    work = page.locator("[data-testid=git-diff][data-path='notes.txt'][data-staged=false]")
    expect(work.get_by_test_id("git-hunk-bar")).to_have_attribute("data-hunks", "1")
    work.locator(".editor.modified .view-line", has_text="x").click()  # the cursor on line 2 only
    work.get_by_test_id("diff-stage-lines").click()
    expect(_row(page, "staged", "notes.txt")).to_be_visible()
    assert _show(folder, ":notes.txt") == "a\nx\nb\n"
    assert (folder / "notes.txt").read_text() == "a\nx\ny\nb\n"
