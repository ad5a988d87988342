"""The command line's client of a running workbench server (``--server URL --token-file FILE``):
``mnnwb check --server`` and ``mnnwb pipeline --device`` ask it over its REST API."""

import argparse
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

TIMEOUT_SECONDS = 3600


class RemoteFailed(Exception):
    """The server could not be asked, or refused."""


def call_server(args: argparse.Namespace, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """``method path`` on the server with the token as Bearer: the JSON answer, or RemoteFailed."""
    if not args.server.startswith(("http://", "https://")):
        raise RemoteFailed(f"--server takes an http:// or https:// URL, not {args.server!r}")
    try:
        token = Path(args.token_file).read_text().strip() if args.token_file else ""
    except OSError as exc:
        raise RemoteFailed(f"cannot read the token file: {exc}") from None
    data = None if body is None else json.dumps(body).encode()
    url = args.server.rstrip("/") + path
    request = urllib.request.Request(url, data=data, method=method)  # noqa: S310 - scheme checked above
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310 - the user's URL
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        detail = json.loads(exc.read() or b"{}").get("detail", exc.reason)
        raise RemoteFailed(f"{method} {path}: {exc.code} {detail}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise RemoteFailed(f"cannot reach {args.server}: {exc}") from None
