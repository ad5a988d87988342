"""A configured HTTP catalog through the market API: listed with its source name, installed into a
project, and a tampered file refused with no project touched."""

import socket
from pathlib import Path

from server.core.config import REPO_ROOT, Settings
from tests.conftest import make_client
from tests.fakes.static_http import static_http
from tests.server.market.remote_packages import publish_index


def test_a_catalog_package_is_listed_and_installed_through_the_api(tmp_path: Path) -> None:
    publish_index(tmp_path / "site", {"tiny": ["1.0.0", "1.1.0"]})
    with static_http(tmp_path / "site") as (url, _):
        settings = Settings(data_dir=tmp_path / "data", webui_dist=REPO_ROOT / "webui" / "dist",
                            market_sources=[{"name": "team-http", "kind": "http",
                                             "url": url + "index.json", "refresh_seconds": 0}])
        with make_client(settings) as client:
            listed = client.get("/api/market", params={"source": "team-http"})
            assert listed.status_code == 200, listed.text
            [entry] = listed.json()
            assert (entry["id"], entry["source"], entry["latest"], entry["versions"]) == (
                "tiny", "team-http", "1.1.0", ["1.0.0", "1.1.0"])
            card = client.get("/api/market/tiny", params={"source": "team-http"}).json()
            assert [v["version"] for v in card["versions"]] == ["1.1.0", "1.0.0"]
            assert card["readme"].startswith("# Tiny")

            project = client.post("/api/projects", json={"name": "p", "template": "empty"}).json()
            installed = client.post("/api/market/tiny/versions/1.1.0/install",
                                    json={"source": "team-http", "project_id": project["id"]})
            assert installed.status_code == 201, installed.text
            assert "market/tiny/model.mnn" in installed.json()["files"]
            readme = client.get(f"/api/projects/{project['id']}/files/content",
                                params={"path": "market/tiny/README.md"}).json()
            assert readme["content"].startswith("# Tiny")

            served = tmp_path / "site/tiny/1.0.0/model.mnn"
            served.write_bytes(bytes(reversed(served.read_bytes())))
            projects_before = client.get("/api/projects").json()
            refused = client.post("/api/market/tiny/versions/1.0.0/install",
                                  json={"source": "team-http", "new_project": "tampered"})
            assert refused.status_code == 422, refused.text
            assert refused.json()["code"] == "checksum_mismatch"
            assert "model.mnn" in refused.json()["detail"]
            assert client.get("/api/projects").json() == projects_before


def test_an_unreachable_catalog_named_in_a_request_answers_503(tmp_path: Path) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{unused.getsockname()[1]}/index.json"  # nothing listens there
    settings = Settings(data_dir=tmp_path / "data", webui_dist=REPO_ROOT / "webui" / "dist",
                        market_sources=[{"name": "gone", "kind": "http", "url": dead, "timeout": 5}])
    with make_client(settings) as client:
        answer = client.get("/api/market", params={"source": "gone"})
    assert answer.status_code == 503, answer.text
    assert answer.json()["code"] == "catalog_unreachable"
