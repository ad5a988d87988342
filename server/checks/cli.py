"""``mnnwb check [PROJECT_DIR] [--junit FILE] [--device NAME] [--server URL --token-file FILE]``.

Runs the project's budgets here, with no server (the model tools run as local workers), or asks
a running workbench to run them. Prints a table; exits 0 when every budget holds, 1 when one
fails, 2 when the checks cannot run (no or malformed ``mnnwb.toml``, server unreachable).
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from server.checks.models import CheckReport
from server.checks.report import table, write_junit
from server.checks.service import run_checks
from server.core.errors import AppError

TIMEOUT_SECONDS = 3600


class RemoteFailed(Exception):
    """The server could not be asked, or refused."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mnnwb check", description="Check the project's performance budgets (mnnwb.toml)."
    )
    parser.add_argument("project_dir", nargs="?", default=".", help="the project folder (default: .)")
    parser.add_argument("--junit", metavar="FILE", help="also write the results as JUnit XML")
    parser.add_argument("--device", metavar="NAME", help="only the budgets for this device")
    parser.add_argument("--server", metavar="URL", help="run the checks on this workbench server")
    parser.add_argument("--token-file", metavar="FILE", help="the server's API token (with --server)")
    parser.add_argument("--project", metavar="ID", help="the project's id on the server (default: by folder)")
    return parser


def call_server(args: argparse.Namespace, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
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


def _project_id(args: argparse.Namespace) -> str:
    if args.project:
        return str(args.project)
    folder = os.path.realpath(args.project_dir)
    for project in call_server(args, "GET", "/api/projects"):
        if os.path.realpath(project["path"]) == folder:
            return str(project["id"])
    raise RemoteFailed(f"no project of the server has the folder {folder}; name it with --project")


def _remote(args: argparse.Namespace) -> CheckReport:
    pid = _project_id(args)
    return CheckReport.model_validate(
        call_server(args, "POST", f"/api/projects/{pid}/checks", {"device": args.device})
    )


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    try:
        report = _remote(args) if args.server else run_checks(Path(args.project_dir).resolve(), args.device)
    except AppError as exc:
        print(f"mnnwb check: {exc.detail}", file=sys.stderr)
        return 2
    except RemoteFailed as exc:
        print(f"mnnwb check: {exc}", file=sys.stderr)
        return 2
    print(table(report), flush=True)
    if args.junit:
        write_junit(report, Path(args.junit))
    return 0 if report.passed else 1
