"""Stage, unstage, discard, commit, log and show — and what plain dulwich gets wrong."""

import shutil
import threading
from pathlib import Path

import pytest

from server.core.errors import Conflict, Invalid, NotFound
from server.gitflow import indexfile, service
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import AUTHOR, as_porcelain, porcelain, write


def test_stage_commit_is_read_by_git(work: Path) -> None:
    write(work, "a.txt", "alpha\nbeta\n")
    write(work, "new.txt", "new\n")
    st = service.stage(work, ["a.txt", "new.txt"])
    assert {(c.path, c.kind) for c in st.staged} == {("a.txt", "modified"), ("new.txt", "added")}
    info = service.commit(work, "second\n\nbody")
    assert git("log", "-1", "--format=%H %an <%ae> %s", cwd=work).strip() == (
        f"{info.sha} Ada Lovelace <ada@example.com> second"
    )
    assert git("status", "--porcelain", cwd=work) == ""
    git("fsck", "--strict", cwd=work)


def test_commit_made_by_git_is_read_by_us(work: Path) -> None:
    write(work, "g.txt", "from git\n")
    git("add", "g.txt", cwd=work)
    git("commit", "-q", "-m", "by git", cwd=work)
    entries = service.log(work)
    assert [e.summary for e in entries] == ["by git", "initial"]
    assert entries[0].parents == [entries[1].sha]
    detail = service.show(work, entries[0].sha)
    assert [(f.path, f.kind) for f in detail.files] == [("g.txt", "added")]


def test_empty_commit_is_refused(work: Path) -> None:
    write(work, "a.txt", "unstaged edit\n")
    with pytest.raises(Invalid) as caught:
        service.commit(work, "nothing")
    assert caught.value.code == "nothing_to_commit"
    assert len(service.log(work)) == 1


def test_commit_without_identity_is_a_clear_error(work: Path) -> None:
    git("config", "--unset", "user.name", cwd=work)
    write(work, "a.txt", "x\n")
    service.stage(work, ["a.txt"])
    with pytest.raises(Invalid) as caught:
        service.commit(work, "who?")
    assert caught.value.code == "no_identity"
    info = service.commit(work, "explicit", author=AUTHOR)
    assert info.author == "Ada Lovelace"


def test_unstage_keeps_the_work_tree(work: Path) -> None:
    write(work, "a.txt", "precious edit\n")
    write(work, "added.txt", "added\n")
    service.stage(work, ["a.txt", "added.txt"])
    st = service.unstage(work, ["a.txt", "added.txt"])
    assert st.staged == []
    assert (work / "a.txt").read_text() == "precious edit\n"
    assert {c.path for c in st.untracked} == {"added.txt"}
    assert [c.path for c in st.unstaged] == ["a.txt"]


def test_discard_restores_from_the_index(work: Path) -> None:
    write(work, "a.txt", "staged\n")
    service.stage(work, ["a.txt"])
    write(work, "a.txt", "staged then edited\n")
    write(work, "junk.txt", "junk\n")
    st = service.discard(work, ["a.txt", "junk.txt"])
    assert (work / "a.txt").read_text() == "staged\n"
    assert not (work / "junk.txt").exists()
    assert [c.path for c in st.staged] == ["a.txt"] and st.unstaged == [] and st.untracked == []


def test_stage_a_folder_and_a_deletion(work: Path) -> None:
    (work / "src/b.py").unlink()
    write(work, "src/c.py", "c\n")
    st = service.stage(work, ["src"])
    assert {(c.path, c.kind) for c in st.staged} == {("src/b.py", "deleted"), ("src/c.py", "added")}


def test_a_file_replaced_by_a_folder_is_staged_and_committed_like_git(work: Path) -> None:
    (work / "a.txt").unlink()
    write(work, "a.txt/inside.txt", "inside\n")
    st = service.stage(work, ["a.txt"])
    assert {(c.path, c.kind) for c in st.staged} == {("a.txt", "deleted"), ("a.txt/inside.txt", "added")}
    service.commit(work, "file to folder")
    assert git("ls-files", cwd=work).split() == ["a.txt/inside.txt", "src/b.py"]
    assert git("status", "--porcelain", cwd=work) == ""
    git("fsck", "--strict", cwd=work)


def test_a_folder_replaced_by_a_file_is_untracked_then_staged_and_committed_like_git(work: Path) -> None:
    shutil.rmtree(work / "src")
    write(work, "src", "now a file\n")
    st = service.status(work)
    assert [(c.path, c.kind) for c in st.unstaged] == [("src/b.py", "deleted")]
    assert [c.path for c in st.untracked] == ["src"]
    st = service.stage(work, ["src"])  # the new file alone: the folder's files go with it
    assert {(c.path, c.kind) for c in st.staged} == {("src", "added"), ("src/b.py", "deleted")}
    service.commit(work, "folder to file")
    assert git("ls-files", cwd=work).split() == ["a.txt", "src"]
    assert git("status", "--porcelain", cwd=work) == ""
    git("fsck", "--strict", cwd=work)


def test_discard_refuses_to_remove_a_folder_where_a_file_was(work: Path) -> None:
    (work / "a.txt").unlink()
    write(work, "a.txt/keep.txt", "work in progress\n")
    with pytest.raises(Conflict) as caught:
        service.discard(work, ["a.txt"])
    assert caught.value.extra["files"] == ["a.txt"]
    assert (work / "a.txt/keep.txt").read_text() == "work in progress\n"


def test_the_index_view_our_writes_leave_equals_a_fresh_parse(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stage, unstage and discard derive the next index view instead of parsing the file again."""
    index_path = str(work / ".git/index")
    parse, parsed = indexfile._parse, []
    monkeypatch.setattr(indexfile, "_parse", lambda path: parsed.append(path) or parse(path))
    write(work, "a.txt", "edited\n")
    write(work, "src/new.py", "new\n")
    service.status(work)  # the view our writes start from
    parsed.clear()

    def check() -> None:
        derived = indexfile.read_index(index_path)
        fresh = parse(index_path)
        assert (derived.entries, derived.conflicted, derived.skipped) == (
            fresh.entries, fresh.conflicted, fresh.skipped)
        fresh.mtime_ns = derived.mtime_ns
        assert derived.clean_keys()[0] == fresh.clean_keys()[0]
        assert derived.folder_groups() == fresh.folder_groups()

    steps = {
        "stage a changed entry": lambda: service.stage(work, ["a.txt"]),  # the folder layout stands
        "stage a new entry": lambda: service.stage(work, ["src/new.py"]),
        "unstage both": lambda: service.unstage(work, ["a.txt", "src/new.py"]),
        "discard (no index write)": lambda: service.discard(work, ["a.txt"]),
    }
    for step_name, step in steps.items():
        step()
        assert parsed == [], step_name  # the write's own status used the derived view
        check()
    assert as_porcelain(work) == porcelain(work)


def test_a_lock_file_left_by_git_is_a_clear_conflict_and_nothing_changes(work: Path) -> None:
    write(work, "a.txt", "edited\n")
    (work / ".git/index.lock").write_bytes(b"")
    before = (work / ".git/index").read_bytes()
    for action in (lambda: service.stage(work, ["a.txt"]), lambda: service.unstage(work, ["a.txt"])):
        with pytest.raises(Conflict) as caught:
            action()
        assert caught.value.code == "repository_locked"
        assert ".git/index.lock" in caught.value.detail
    assert (work / ".git/index").read_bytes() == before
    assert (work / "a.txt").read_text() == "edited\n"
    (work / ".git/index.lock").unlink()
    assert [c.path for c in service.stage(work, ["a.txt"]).staged] == ["a.txt"]


def test_paths_outside_the_work_tree_are_refused(work: Path) -> None:
    for bad in ("../outside", ".git/config", "/etc/passwd/..", ".GIT/hooks"):
        with pytest.raises((Invalid, NotFound)):
            service.stage(work, [bad])


def test_amend_replaces_the_last_commit(work: Path) -> None:
    write(work, "a.txt", "v2\n")
    service.stage(work, ["a.txt"])
    first = service.commit(work, "v2")
    amended = service.commit(work, "v2, better worded", amend=True)
    assert amended.parents == first.parents
    assert git("log", "--format=%s", cwd=work).splitlines() == ["v2, better worded", "initial"]


def test_two_threads_committing_lose_nothing(work: Path) -> None:
    """dulwich alone loses commits here (docs/git.md); one lock per repository keeps them all.

    A thread may find its staged file already committed by the other one; that commit is then
    refused as empty, which loses nothing.
    """
    rounds = 6
    errors: list[BaseException] = []
    made: list[str] = []

    def committer(name: str) -> None:
        for i in range(rounds):
            write(work, f"{name}-{i}.txt", f"{name} {i}\n")
            try:
                service.stage(work, [f"{name}-{i}.txt"])
                made.append(service.commit(work, f"{name} {i}").sha)
            except Invalid as e:
                if e.code != "nothing_to_commit":
                    errors.append(e)
            except BaseException as e:  # collected for the assertion below
                errors.append(e)

    threads = [threading.Thread(target=committer, args=(n,)) for n in ("left", "right")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    history = git("log", "--format=%H", cwd=work).split()
    assert len(history) == len(made) + 1 and set(made) <= set(history)
    committed = set(git("ls-tree", "-r", "--name-only", "HEAD", cwd=work).split())
    assert {f"{n}-{i}.txt" for n in ("left", "right") for i in range(rounds)} <= committed
    assert git("status", "--porcelain", cwd=work) == ""


def test_log_pages_and_show_a_merge_parent_list(work: Path) -> None:
    for i in range(5):
        write(work, "a.txt", f"v{i}\n")
        service.stage(work, ["a.txt"])
        service.commit(work, f"v{i}")
    page = service.log(work, limit=2, skip=1)
    assert [e.summary for e in page] == ["v3", "v2"]
    assert page[0].parents == [page[1].sha]


def test_files_reached_through_a_symlinked_folder_are_refused(work: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.txt", "secret\n")
    (work / "linked").symlink_to(outside)
    with pytest.raises(Invalid):
        service.stage(work, ["linked/secret.txt"])
    assert "secret" not in git("ls-files", "--stage", cwd=work)


def test_our_index_writes_keep_git_happy(work: Path) -> None:
    write(work, "a.txt", "v2\n")
    (work / "src/b.py").unlink()
    write(work, "deep/er/" + "long-name-" * 20 + ".txt", "long\n")
    service.stage(work, ["a.txt", "src/b.py", "deep"])
    assert git("diff", "--cached", "--name-status", cwd=work).split("\n")[:2] == [
        "M\ta.txt",
        "A\tdeep/er/" + "long-name-" * 20 + ".txt",
    ]
    git("update-index", "--really-refresh", cwd=work)
    assert git("status", "--porcelain", cwd=work).splitlines() == [
        "M  a.txt",
        "A  deep/er/" + "long-name-" * 20 + ".txt",
        "D  src/b.py",
    ]
