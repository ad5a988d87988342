"""What the project page's shell makes a browser fetch before anything else, measured on the real
build: its entry script, module preloads and stylesheets stay under 500 KB gzipped
(docs/performance.md, "Foundation"). Monaco is not among them: it loads once the first view is
drawn (webui/src/monaco/load.ts)."""

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.core.config import REPO_ROOT, Settings
from server.core.security import load_or_create_token

DIST = REPO_ROOT / "webui" / "dist"
LIMIT_BYTES = 500 * 1000
NAMED = re.compile(
    r'<(?:link rel="(?:stylesheet|modulepreload)" href|script type="module" src)="/static/([^"]+)"'
)


def named_assets(html: str) -> list[str]:
    """The build's files a shell names: stylesheets, module preloads and the entry script."""
    return NAMED.findall(html)


def gzipped_bytes(name: str) -> int:
    """What the server sends for an asset: its build-time `.gz`, or the file if none was written
    (vite.config.ts leaves files under 1 KB plain)."""
    file = DIST / name
    packed = file.with_name(file.name + ".gz")
    return (packed if packed.exists() else file).stat().st_size


@pytest.fixture
def real_build(tmp_path: Path) -> TestClient:
    if not (DIST / ".vite" / "manifest.json").exists():
        pytest.fail("the web UI is not built: run `make ui`")
    settings = Settings(data_dir=tmp_path / "data", webui_dist=DIST)
    app = create_app(settings)
    headers = {"Authorization": f"Bearer {load_or_create_token(settings.token_file)}", "X-MNNWB-CSRF": "1"}
    with TestClient(app, base_url="http://127.0.0.1:8765", headers=headers) as client:
        yield client


def test_the_project_page_starts_with_under_500_kb_gzipped_and_without_monaco(real_build):
    project = real_build.post("/api/projects", json={"name": "p"}).json()
    html = real_build.get(f"/p/{project['id']}").text
    assets = named_assets(html)
    entry = re.search(r'<script type="module" src="/static/([^"]+)"', html)
    assert entry and entry.group(1) in assets and any(a.endswith(".css") for a in assets)
    sizes = {name: gzipped_bytes(name) for name in assets}
    assert sum(sizes.values()) < LIMIT_BYTES, sorted(sizes.items(), key=lambda item: -item[1])
    assert not [name for name in assets if Path(name).name.startswith("setup-")]  # webui/src/monaco/setup.ts
