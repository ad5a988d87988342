"""The HTML shell and the static bundle: config in the page, caching, precompressed assets."""

import gzip
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.api.services import services_of
from server.app import create_app
from server.core.config import Settings
from server.core.security import load_or_create_token
from server.web.first_view import visible_editor_paths

MANIFEST = {
    "src/main.tsx": {"file": "assets/main-abc.js", "isEntry": True, "css": ["assets/main-abc.css"]},
    "src/features/workbench/mountWorkbench.tsx": {
        "file": "assets/wb-def.js", "isDynamicEntry": True, "imports": ["src/main.tsx", "_shared.js"],
        "css": ["assets/wb-def.css"],
    },
    "src/monaco/setup.ts": {
        "file": "assets/setup-ghi.js", "isDynamicEntry": True, "imports": ["src/main.tsx", "_shared.js"],
        "css": ["assets/setup-ghi.css"],
    },
    "_shared.js": {"file": "assets/shared-123.js"},
}


@pytest.fixture
def built(tmp_path: Path) -> TestClient:
    dist = tmp_path / "dist"
    (dist / ".vite").mkdir(parents=True)
    (dist / "assets").mkdir()
    (dist / ".vite" / "manifest.json").write_text(json.dumps(MANIFEST))
    source = b"console.log('workbench');" * 100
    (dist / "assets" / "main-abc.js").write_bytes(source)
    (dist / "assets" / "main-abc.js.gz").write_bytes(gzip.compress(source))
    settings = Settings(data_dir=tmp_path / "data", webui_dist=dist)
    app = create_app(settings)
    headers = {"Authorization": f"Bearer {load_or_create_token(settings.token_file)}", "X-MNNWB-CSRF": "1"}
    with TestClient(app, base_url="http://127.0.0.1:8765", headers=headers) as client:
        yield client


def _config(html: str) -> dict:
    start = html.index('id="mnnwb-config">') + len('id="mnnwb-config">')
    return json.loads(html[start : html.index("</script>", start)])


def test_project_page_carries_its_config_and_preloads_its_chunks(built):
    project = built.post("/api/projects", json={"name": "p"}).json()
    page = built.get(f"/p/{project['id']}")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    config = _config(page.text)
    assert config["page"] == "project" and config["project"]["id"] == project["id"]
    assert config["ws_path"] == f"/api/projects/{project['id']}/ws"
    assert '<script type="module" src="/static/assets/main-abc.js">' in page.text
    assert '<link rel="modulepreload" href="/static/assets/wb-def.js">' in page.text
    assert '<link rel="modulepreload" href="/static/assets/shared-123.js">' in page.text
    assert '<link rel="stylesheet" href="/static/assets/wb-def.css">' in page.text
    # The entry first (it asks for the page's data), then the workbench, which draws the open
    # files; Monaco is asked for once they are drawn, so the shell does not name it.
    preloads = re.findall(r'<link rel="modulepreload" href="/static/assets/([^"]+)">', page.text)
    assert preloads == ["main-abc.js", "wb-def.js", "shared-123.js"]
    assert "setup-ghi" not in page.text


def test_a_missing_project_page_says_so(built):
    page = built.get("/p/nope")
    assert page.status_code == 404 and _config(page.text)["page"] == "missing"


def test_config_json_cannot_break_out_of_its_script_tag(built):
    project = built.post("/api/projects", json={"name": "p"}).json()
    built.patch(f"/api/projects/{project['id']}", json={"name": "x"})
    html = built.get(f"/p/{project['id']}").text
    assert html.count("</script>") == 2


def test_hashed_assets_are_immutable_and_served_precompressed(built):
    response = built.get("/static/assets/main-abc.js", headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200
    assert response.headers["content-encoding"] == "gzip"
    assert "immutable" in response.headers["cache-control"]
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.content == b"console.log('workbench');" * 100
    plain = built.get("/static/assets/main-abc.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and len(plain.content) == 2500


def test_a_hashed_asset_is_read_once_then_answered_from_memory(built, tmp_path):
    first = built.get("/static/assets/main-abc.js", headers={"Accept-Encoding": "gzip"})
    plain = built.get("/static/assets/main-abc.js", headers={"Accept-Encoding": "identity"})
    for name in ("main-abc.js", "main-abc.js.gz"):
        (tmp_path / "dist" / "assets" / name).unlink()
    again = built.get("/static/assets/main-abc.js", headers={"Accept-Encoding": "gzip"})
    assert again.status_code == 200 and again.content == first.content
    assert again.headers["content-encoding"] == "gzip" and again.headers["vary"] == "Accept-Encoding"
    unzipped = built.get("/static/assets/main-abc.js", headers={"Accept-Encoding": "identity"})
    assert unzipped.content == plain.content and "content-encoding" not in unzipped.headers


@pytest.mark.parametrize("path", ["/static/assets/missing.js", "/static/assets/..%2F..%2Fdata%2Fserver.token",
                                  "/static/assets"])
def test_nothing_outside_the_built_assets_is_served_from_them(built, path):
    response = built.get(path, headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 404
    assert "manifest" not in response.text and services_of(built.app).token not in response.text


def _layout(*paths: str) -> dict:
    """A dockview layout with one group a path, each showing its editor."""
    groups = [{"type": "leaf", "data": {"views": [f"editor:{p}"], "activeView": f"editor:{p}"}}
              for p in paths]
    panels = {f"editor:{p}": {"id": f"editor:{p}", "params": {"path": p}} for p in paths}
    return {"grid": {"root": {"type": "branch", "data": groups}}, "panels": panels}


def test_a_project_page_carries_its_layout_and_the_files_it_shows(built):
    project = built.post("/api/projects", json={"name": "p"}).json()
    root = Path(project["path"])
    (root / "big.txt").write_text("x" * (300 * 1024))
    (root / "tag.py").write_text("s = '</script><script>alert(1)</script>'\n")
    (root.parent / "outside.txt").write_text("not this project's")
    shown = ["README.md", "tag.py", "big.txt", "gone.py", "../outside.txt", "main.py"]
    state = {"layout": _layout(*shown), "expanded": ["src"]}
    assert built.put(f"/api/projects/{project['id']}/ui-state", json={"state": state}).status_code == 200

    page = built.get(f"/p/{project['id']}")
    first = _config(page.text)["first_view"]
    assert first["ui_state"] == state
    # As the files API answers them; what it would refuse or is large the page asks for itself.
    api = f"/api/projects/{project['id']}/files/content"
    read = ("README.md", "tag.py", "main.py")
    assert first["files"] == {p: built.get(api, params={"path": p}).json() for p in read}
    assert page.text.count("</script>") == 2  # the file's text cannot end the config's script tag
    assert "not this project" not in page.text


def test_the_visible_editors_of_a_layout_are_found_however_deep_or_odd_it_is():
    deep: dict = {"activeView": "editor:deep.py"}
    for _ in range(5000):  # deeper than Python's recursion limit
        deep = {"type": "branch", "data": [deep]}
    groups = [deep, {"activeView": "terminal:1"}, {"activeView": "editor:odd"},
              {"activeView": "editor:a.py"}, {"activeView": 7}]
    panels = {"editor:deep.py": {"params": {"path": "deep.py"}}, "editor:odd": ["not", "a", "panel"],
              "editor:a.py": {"params": {"path": "a.py"}}, "terminal:1": {"params": {"path": "t"}}}
    layout = {"grid": {"root": {"data": groups}}, "panels": panels}
    assert visible_editor_paths(layout) == ["deep.py", "a.py"]
    assert visible_editor_paths(None) == [] and visible_editor_paths({"grid": [], "panels": []}) == []
