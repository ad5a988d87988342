"""A path with a component longer than any file system takes (255 bytes) is a 422 on every
route that takes a path, never a 500 from the OS call that trips over it."""

import pytest

LONG = "a" * 256
# Four UTF-8 bytes each: 64 characters are 256 bytes, within a 255-character limit.
LONG_BYTES = "\N{GRINNING FACE}" * 64

# Query parameters and body fields that name a file, a folder or a list of them.
PATH_QUERY = {"path", "dir"}
PATH_FIELDS = {"path", "paths", "to", "interpreter"}

# (method, route as the API documents it, what to send); {name} is the long component.
REQUESTS = [
    ("POST", "/api/projects", {"json": {"name": "x", "path": "/tmp/{name}/x"}}),
    ("GET", "/api/projects/{pid}/files", {"params": {"path": "{name}"}}),
    ("GET", "/api/projects/{pid}/files/content", {"params": {"path": "src/{name}"}}),
    ("PUT", "/api/projects/{pid}/files/content", {"params": {"path": "{name}"}, "json": {"content": ""}}),
    ("POST", "/api/projects/{pid}/files/ops", {"json": {"op": "create", "path": "{name}"}}),
    ("POST", "/api/projects/{pid}/files/ops",
     {"json": {"op": "rename", "path": "README.md", "to": "{name}"}}),
    ("POST", "/api/projects/{pid}/files/upload",
     {"data": {"dir": "{name}"}, "files": {"files": ("a.txt", b"x")}}),
    ("GET", "/api/projects/{pid}/files/raw", {"params": {"path": "{name}"}}),
    ("PUT", "/api/projects/{pid}/runtime", {"json": {"interpreter": "/usr/{name}/python"}}),
    ("GET", "/api/projects/{pid}/git/diff", {"params": {"path": "{name}"}}),
    ("POST", "/api/projects/{pid}/git/stage", {"json": {"paths": ["{name}"]}}),
    ("POST", "/api/projects/{pid}/git/unstage", {"json": {"paths": ["{name}"]}}),
    ("POST", "/api/projects/{pid}/git/discard", {"json": {"paths": ["{name}"]}}),
    ("POST", "/api/projects/{pid}/git/stage-text", {"json": {"path": "{name}", "text": "x"}}),
    ("POST", "/api/projects/{pid}/git/discard-text",
     {"json": {"path": "{name}", "text": "x", "base": "0" * 40}}),
    ("GET", "/api/projects/{pid}/git/blame", {"params": {"path": "{name}"}}),
    ("GET", "/api/projects/{pid}/lineage", {"params": {"path": "{name}"}}),
    ("GET", "/api/projects/{pid}/dataset", {"params": {"path": "{name}"}}),
    ("GET", "/api/projects/{pid}/model-spec", {"params": {"path": "{name}"}}),
    ("PUT", "/api/projects/{pid}/model-spec", {"params": {"path": "{name}"}, "json": {"inputs": []}}),
    ("PUT", "/api/projects/{pid}/backups", {"params": {"path": "{name}"}, "json": {"content": "x"}}),
    ("DELETE", "/api/projects/{pid}/backups", {"params": {"path": "{name}"}}),
    ("GET", "/api/projects/{pid}/git/conflict", {"params": {"path": "{name}"}}),
    ("POST", "/api/projects/{pid}/git/resolve", {"json": {"path": "{name}", "take": "ours"}}),
    ("GET", "/api/projects/{pid}/git/blob", {"params": {"rev": "HEAD", "path": "{name}"}}),
    ("POST", "/api/projects/{pid}/git/blob-inspect", {"json": {"rev": "HEAD", "path": "{name}.onnx"}}),
    ("GET", "/api/projects/{pid}/git/commits/{sha}/diff", {"params": {"path": "{name}"}}),
    ("POST", "/api/projects/{pid}/search/replace/preview",
     {"json": {"query": "x", "replacement": "y", "paths": ["{name}"]}}),
    ("POST", "/api/projects/{pid}/tools/inspect", {"json": {"model": "{name}.onnx"}}),
    ("POST", "/api/projects/{pid}/lsp/edits/preview", {"json": {"files": [{"path": "{name}.py", "edits": [
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
         "newText": ""}]}]}}),
    ("POST", "/api/projects/{pid}/publish",
     {"json": {"id": "long", "version": "1.0.0", "files": ["{name}.mnn"]}}),
]

FIRST_COMMIT = {"message": "one", "author": "Ada <ada@example.com>"}


def _fill(value, name: str):
    if isinstance(value, str):
        return value.replace("{name}", name)
    if isinstance(value, dict):
        return {k: _fill(v, name) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, name) for v in value]
    return value


@pytest.fixture
def committed(client, project) -> dict:
    """The project with a repository and one commit, so Git routes reach their path check."""
    base = f"/api/projects/{project['id']}/git"
    assert client.post(f"{base}/init").status_code == 201
    assert client.post(f"{base}/stage", json={"paths": ["README.md"]}).status_code == 200
    assert client.post(f"{base}/commit", json=FIRST_COMMIT).status_code == 201
    return project


@pytest.mark.parametrize("name", [LONG, LONG_BYTES], ids=["256-ascii", "256-utf8-bytes"])
def test_every_route_that_takes_a_path_answers_422(client, committed, name):
    answers = []
    for method, route, parts in REQUESTS:
        url = route.replace("{pid}", committed["id"]).replace("{sha}", "HEAD")
        response = client.request(method, url, **_fill(parts, name))
        answers.append((method, route, response.status_code, response.json().get("code")))
    wrong = [a for a in answers if a[2] != 422]
    assert not wrong, wrong


def test_a_name_of_255_bytes_is_still_a_name(client, project):
    name = "b" * 255
    url = f"/api/projects/{project['id']}/files/content"
    assert client.put(url, params={"path": name}, json={"content": "ok"}).status_code == 200
    assert client.get(url, params={"path": name}).json()["content"] == "ok"


def test_the_table_covers_every_route_that_takes_a_path(client):
    """A new route taking a path must be added to REQUESTS above."""
    listed = {(method, route) for method, route, _ in REQUESTS}
    doc = client.app.openapi()
    schemas = doc["components"]["schemas"]
    missing = []
    for route, operations in doc["paths"].items():
        for method, operation in operations.items():
            fields = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
            for content in operation.get("requestBody", {}).get("content", {}).values():
                ref = content["schema"].get("$ref", "")
                fields |= set(schemas.get(ref.rsplit("/", 1)[-1], {}).get("properties", {}))
            takes_path = fields & (PATH_QUERY | PATH_FIELDS)
            if takes_path and (method.upper(), route) not in listed:
                missing.append((method.upper(), route, sorted(takes_path)))
    assert not missing, missing
