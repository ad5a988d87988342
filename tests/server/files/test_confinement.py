"""Path confinement: traversal, absolute paths, symlink escapes and .git writes are refused."""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.core.errors import AppError
from server.files.paths import resolve

SEGMENTS = st.sampled_from(["..", ".", "a", ".git", ".GIT", "git~1", "", "b c", "/", "\\", "%2e%2e"])


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", root / "leak.txt")
    os.symlink(tmp_path, root / "outside")
    os.symlink(root / ".git", root / "gitlink")
    os.symlink(root / "sub", root / "inside")
    return root


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(SEGMENTS, min_size=1, max_size=6))
def test_resolved_paths_never_leave_the_root_or_enter_git(sandbox, parts):
    rel = "/".join(parts)
    try:
        resolved = resolve(sandbox, rel)
    except AppError:
        return
    real_root = os.path.realpath(sandbox)
    assert os.path.commonpath([real_root, resolved]) == real_root
    inner = Path(os.path.relpath(resolved, real_root)).parts
    assert not any(p.lower() in (".git", "git~1") for p in inner)


@pytest.mark.parametrize("rel", ["leak.txt", "outside/secret.txt", "gitlink/config", "../x",
                                 "/etc/passwd", ".git/config", ".GIT/HEAD", "sub/../../x"])
def test_escapes_are_refused(sandbox, rel):
    with pytest.raises(AppError) as info:
        resolve(sandbox, rel)
    assert info.value.status in (403, 422)


def test_symlinks_inside_the_root_are_fine(sandbox):
    assert resolve(sandbox, "inside") == (sandbox / "sub").resolve()


def test_api_refuses_traversal_and_symlink_escape(client, project, tmp_path):
    root = Path(project["path"])
    os.symlink(tmp_path, root / "out")
    files = f"/api/projects/{project['id']}/files"
    for rel in ("../data/token", "out/data/token", ".git/config", "/etc/passwd"):
        assert client.get(f"{files}/content", params={"path": rel}).status_code in (403, 422)
        put = client.put(f"{files}/content", params={"path": rel}, json={"content": "x"})
        assert put.status_code in (403, 422)
    assert "out" not in [e["name"] for e in client.get(files).json()]
    assert not (root / ".git").exists()
