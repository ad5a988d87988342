"""What a Ray job's working_dir holds: the commit's files (not the work tree's changes), or a
snapshot without Git data, outputs or symlinks; and the runtime_env's pip step."""

from pathlib import Path

from dulwich import porcelain

from server.training.ray.workdir import copy_snapshot, export_commit, runtime_env


def test_commit_export_and_snapshot(tmp_path: Path):
    project = tmp_path / "p"
    (project / "pkg").mkdir(parents=True)
    (project / "train.py").write_text("v1")
    (project / "pkg" / "run.sh").write_text("#!/bin/sh\n")
    (project / "pkg" / "run.sh").chmod(0o755)
    porcelain.init(str(project))
    porcelain.add(str(project), [str(project / "train.py"), str(project / "pkg" / "run.sh")])
    commit = porcelain.commit(str(project), b"one", author=b"A <a@example.com>",
                              committer=b"A <a@example.com>").decode()
    (project / "train.py").write_text("v2, not committed")
    (project / "outputs").mkdir()
    (project / "outputs" / "big.bin").write_bytes(b"x")
    secret = tmp_path / "outside.txt"
    secret.write_text("not the project's")
    (project / "link.txt").symlink_to(secret)

    exported = tmp_path / "exported"
    export_commit(project, commit, exported)
    assert sorted(p.relative_to(exported).as_posix() for p in exported.rglob("*") if p.is_file()) == [
        "pkg/run.sh", "train.py"]
    assert (exported / "train.py").read_text() == "v1"
    assert (exported / "pkg" / "run.sh").stat().st_mode & 0o111

    snapshot = tmp_path / "snapshot"
    copy_snapshot(project, snapshot)
    assert (snapshot / "train.py").read_text() == "v2, not committed"
    for left_out in (".git", "outputs", "link.txt"):
        assert not (snapshot / left_out).exists()


def test_pip_only_with_requirements(tmp_path: Path):
    assert "pip" not in runtime_env(tmp_path, {"A": "1"})
    (tmp_path / "requirements.txt").write_text("# deps\nnumpy==2.0.0  # pinned\n\n-r other.txt\n")
    env = runtime_env(tmp_path, {})
    assert env["pip"] == {"packages": ["numpy==2.0.0"], "pip_check": False}
    assert env["working_dir"] == str(tmp_path)
