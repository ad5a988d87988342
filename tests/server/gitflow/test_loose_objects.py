"""New blobs written by staging: loose (several at a time) up to ``LOOSE_MAX``, else one pack;
git reads every one, and nothing temporary is left in the object folders."""

import os
from pathlib import Path

from server.gitflow import looseobjects, service
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import as_porcelain, porcelain, write


def _loose(work: Path) -> set[str]:
    objects = work / ".git" / "objects"
    return {f"{d.name}/{f.name}" for d in objects.iterdir() if len(d.name) == 2 for f in d.iterdir()}


def test_staged_files_are_loose_objects_git_reads(work: Path) -> None:
    texts = {f"src/f{i}.txt": f"file {i}\n" * (i + 1) for i in range(12)}
    for path, text in texts.items():
        write(work, path, text)
    os.symlink("src/f0.txt", work / "link")
    before = _loose(work)
    service.stage(work, [*texts, "link"])
    for path, text in texts.items():
        sha = git("rev-parse", f":{path}", cwd=work).strip()
        assert sha == git("hash-object", path, cwd=work).strip()
        assert git("cat-file", "-p", sha, cwd=work) == text
    assert git("cat-file", "-p", ":link", cwd=work) == "src/f0.txt"
    written = _loose(work) - before
    assert len(written) == len(texts) + 1
    assert not [name for name in written if "tmp_obj_" in name]
    assert porcelain(work) == as_porcelain(work)
    git("fsck", "--strict", cwd=work)


def test_an_object_already_there_is_written_again_unharmed(work: Path) -> None:
    write(work, "a.txt", "same\n")
    service.stage(work, ["a.txt"])
    service.unstage(work, ["a.txt"])
    service.stage(work, ["a.txt"])
    service.commit(work, "same twice")
    assert git("status", "--porcelain", cwd=work) == ""
    git("fsck", "--strict", cwd=work)


def test_more_than_the_loose_limit_go_into_one_pack(work: Path) -> None:
    count = looseobjects.LOOSE_MAX + 1
    for i in range(count):
        write(work, f"many/n{i}.txt", f"number {i}\n")
    packs = set((work / ".git" / "objects" / "pack").glob("*.pack"))
    before = _loose(work)
    service.stage(work, ["many"])
    assert _loose(work) == before
    new_packs = set((work / ".git" / "objects" / "pack").glob("*.pack")) - packs
    assert len(new_packs) == 1
    service.commit(work, "many")
    assert git("status", "--porcelain", cwd=work) == ""
    assert git("cat-file", "-p", "HEAD:many/n7.txt", cwd=work) == "number 7\n"
    git("fsck", "--strict", cwd=work)
