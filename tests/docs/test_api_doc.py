"""docs/api.md names every route the server serves, with its methods."""

import re

from server.core.config import REPO_ROOT


def test_every_route_is_in_the_api_doc(client):
    text = (REPO_ROOT / "docs" / "api.md").read_text()
    documented = set()
    for cell in re.findall(r"`((?:GET|POST|PUT|PATCH|DELETE)[A-Z ]*) (/[^`]+)`", text):
        methods, path = cell
        documented.update((m, path) for m in methods.split())
    missing = [
        (method.upper(), path)
        for path, operations in client.app.openapi()["paths"].items()
        for method in operations
        if (method.upper(), path) not in documented
    ]
    assert not missing, f"routes missing from docs/api.md: {missing}"
