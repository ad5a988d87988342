"""An emulator of the Hugging Face Hub endpoints ``huggingface_hub`` calls to list an organisation's
model repositories and download their files, serving repositories from a folder.

Layout: ``root/<org>/<repo>/<revision>/…files`` — each revision folder (``main``, or a tag name)
is one commit whose id is derived from its content. Endpoints, as the real client calls them:

* ``GET /api/models?author=ORG`` (``HfApi.list_models``)
* ``GET /api/models/ORG/REPO/refs`` (``HfApi.list_repo_refs``)
* ``GET /api/models/ORG/REPO[/revision/REV][?blobs=True]`` (``HfApi.model_info``; with
  ``files_metadata=True`` each sibling has ``size``, ``blobId`` and, for LFS files, ``lfs``)
* ``HEAD|GET /ORG/REPO/resolve/REV/PATH`` (``hf_hub_url``, ``hf_hub_download``): a regular file
  is served with ``ETag`` (its Git blob id) and ``X-Repo-Commit``; an LFS file answers 302 to the
  "CDN" (the same server reached as ``localhost``, another origin) with ``X-Linked-Etag`` (its
  sha256), ``X-Linked-Size`` and ``X-Repo-Commit``, as the real hub does.
* ``GET /lfs/SHA256``: the CDN. Every file answer honours ``Range`` (206 + ``Content-Range``).
* Errors carry ``X-Error-Code`` (``RepoNotFound``, ``RevisionNotFound``, ``EntryNotFound``).

Test knobs: ``drop_once`` (paths whose first whole download is cut halfway), ``serve_instead``
(path → bytes served in place of the real content, as a corrupted mirror would), and ``requests``
(every request seen, with its ``Range`` header).
"""

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

LFS_SUFFIXES = (".mnn", ".onnx", ".weight", ".bin", ".safetensors")


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    range: str | None


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def lfs_pointer(data: bytes) -> bytes:
    return (f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(data).hexdigest()}"
            f"\nsize {len(data)}\n").encode()


@dataclass
class HubState:
    root: Path
    pipeline_tags: dict[str, str] = field(default_factory=dict)  # repo id → pipeline_tag
    drop_once: set[str] = field(default_factory=set)
    serve_instead: dict[str, bytes] = field(default_factory=dict)
    requests: list[Seen] = field(default_factory=list)
    port: int = 0

    def repos(self, author: str) -> list[str]:
        org = self.root / author
        return sorted(f"{author}/{p.name}" for p in org.iterdir() if p.is_dir()) if org.is_dir() else []

    def revisions(self, repo: str) -> dict[str, Path]:
        folder = self.root / repo
        return {p.name: p for p in sorted(folder.iterdir()) if p.is_dir()} if folder.is_dir() else {}

    def commit(self, folder: Path) -> str:
        digest = hashlib.sha1(usedforsecurity=False)
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
        return digest.hexdigest()

    def resolve(self, repo: str, rev: str) -> tuple[str, Path] | None:
        """A revision by name or by commit id."""
        for name, folder in self.revisions(repo).items():
            if rev in (name, self.commit(folder)):
                return name, folder
        return None

    def sibling(self, folder: Path, path: Path) -> dict:
        data = path.read_bytes()
        entry: dict = {"rfilename": path.relative_to(folder).as_posix(), "size": len(data)}
        if path.suffix in LFS_SUFFIXES:
            pointer = lfs_pointer(data)
            entry.update(blobId=git_blob_id(pointer), size=len(data),
                         lfs={"sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
                              "pointerSize": len(pointer)})
        else:
            entry["blobId"] = git_blob_id(data)
        return entry

    def info(self, repo: str, folder: Path, blobs: bool) -> dict:
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        siblings = [self.sibling(folder, p) if blobs else {"rfilename": p.relative_to(folder).as_posix()}
                    for p in files]
        tags = ["mnn", "license:apache-2.0"]
        return {"id": repo, "_id": repo, "modelId": repo, "author": repo.split("/")[0],
                "sha": self.commit(folder), "private": False, "gated": False, "disabled": False,
                "tags": tags, "pipeline_tag": self.pipeline_tags.get(repo),
                "lastModified": "2026-01-01T00:00:00.000Z", "siblings": siblings}


class HubHandler(BaseHTTPRequestHandler):
    server: "HubServer"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        return None

    def do_HEAD(self) -> None:
        self._route(head=True)

    def do_GET(self) -> None:
        self._route(head=False)

    def _route(self, head: bool) -> None:
        state = self.server.state
        url = urlsplit(self.path)
        state.requests.append(Seen(self.command, url.path, self.headers.get("Range")))
        parts = [unquote(p) for p in url.path.strip("/").split("/")]
        query = parse_qs(url.query)
        if parts[:2] == ["api", "models"]:
            self._api(parts[2:], query)
        elif len(parts) >= 5 and parts[2] == "resolve":
            self._resolve("/".join(parts[:2]), parts[3], "/".join(parts[4:]), head)
        elif len(parts) == 2 and parts[0] == "lfs":
            self._lfs(parts[1], head)
        else:
            self._error(404, "EntryNotFound", "no such route")

    def _api(self, rest: list[str], query: dict[str, list[str]]) -> None:
        state = self.server.state
        if not rest:
            author = query.get("author", [""])[0]
            models = []
            for repo in state.repos(author):
                main = state.revisions(repo).get("main") or next(iter(state.revisions(repo).values()))
                info = state.info(repo, main, blobs=False)
                models.append({k: info[k] for k in ("id", "_id", "modelId", "author", "sha", "private",
                                                    "tags", "pipeline_tag", "lastModified")})
            return self._json(models)
        repo = "/".join(rest[:2])
        revisions = state.revisions(repo)
        if not revisions:
            return self._error(404, "RepoNotFound", f"Repository Not Found for url: {repo}")
        if rest[2:] == ["refs"]:
            refs = {name: state.commit(folder) for name, folder in revisions.items()}
            return self._json({
                "branches": [{"name": "main", "ref": "refs/heads/main", "targetCommit": refs["main"]}]
                if "main" in refs else [],
                "converts": [],
                "tags": [{"name": n, "ref": f"refs/tags/{n}", "targetCommit": c}
                         for n, c in refs.items() if n != "main"],
            })
        rev = rest[3] if rest[2:3] == ["revision"] else "main"
        found = state.resolve(repo, rev)
        if found is None:
            return self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
        blobs = query.get("blobs", ["false"])[0].lower() == "true"
        self._json(state.info(repo, found[1], blobs))

    def _resolve(self, repo: str, rev: str, rel: str, head: bool) -> None:
        state = self.server.state
        found = state.resolve(repo, rev)
        if found is None:
            return self._error(404, "RevisionNotFound" if state.revisions(repo) else "RepoNotFound",
                               f"{repo}@{rev} not found")
        folder = found[1]
        path = (folder / rel).resolve()
        if not path.is_relative_to(folder.resolve()) or not path.is_file():
            return self._error(404, "EntryNotFound", f"{rel} does not exist on {rev}")
        commit = state.commit(folder)
        entry = state.sibling(folder, path)
        if "lfs" in entry:
            sha = entry["lfs"]["sha256"]
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{state.port}/lfs/{sha}?name={quote(rel)}")
            self.send_header("X-Repo-Commit", commit)
            self.send_header("X-Linked-Etag", f'"{sha}"')
            self.send_header("X-Linked-Size", str(entry["size"]))
            self.send_header("ETag", f'"{entry["blobId"]}"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = state.serve_instead.get(rel, path.read_bytes())
        self._file(data, rel, head, {"X-Repo-Commit": commit, "ETag": f'"{entry["blobId"]}"'})

    def _lfs(self, sha: str, head: bool) -> None:
        state = self.server.state
        name = parse_qs(urlsplit(self.path).query).get("name", [""])[0]
        for path in state.root.rglob("*"):
            if path.is_file() and path.suffix in LFS_SUFFIXES:
                data = path.read_bytes()
                if hashlib.sha256(data).hexdigest() == sha:
                    data = state.serve_instead.get(name, data)
                    return self._file(data, name, head, {"ETag": f'"{sha}"'})
        self._error(404, "EntryNotFound", "no such object")

    def _file(self, data: bytes, name: str, head: bool, headers: dict[str, str]) -> None:
        start, status = 0, 200
        wanted = self.headers.get("Range")
        if wanted and wanted.startswith("bytes=") and wanted[6:].endswith("-"):
            start, status = int(wanted[6:-1]), 206
        if start > len(data):
            return self._error(416, "RangeNotSatisfiable", "range not satisfiable")
        body = data[start:]
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(len(body)))
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.end_headers()
        if head:
            return
        if status == 200 and name in self.server.state.drop_once:
            self.server.state.drop_once.discard(name)
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)

    def _json(self, payload: object) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, code: str, message: str) -> None:
        body = json.dumps({"error": message}).encode()
        self.send_response(status)
        self.send_header("X-Error-Code", code)
        self.send_header("X-Error-Message", message)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class HubServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: HubState) -> None:
        super().__init__(("127.0.0.1", 0), HubHandler)
        self.state = state
        state.port = self.server_address[1]


@contextmanager
def hf_hub(root: Path, pipeline_tags: dict[str, str] | None = None) -> Iterator[tuple[str, HubState]]:
    """Serve the repositories under ``root``; yields the endpoint URL and the emulator's state."""
    state = HubState(root, pipeline_tags=pipeline_tags or {})
    server = HubServer(state)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{state.port}", state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
