"""``mnnwb pipeline run FILE --input PATH … --server URL --token-file FILE [--device ID]
[--variant STAGE.KEY=VALUE …] [--json]``: the server runs the pipeline (on that paired device)
as a tool run; this follows it and prints what ``pipeline_cli`` prints for a run here. The
files are the project's: the project is the server's one whose folder holds ``FILE``."""

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from device_bridge.runtime.pipeline_cli import parser, text, variants
from server.core.remote import RemoteFailed, call_server

POLL_SECONDS = 0.5
FINAL = ("succeeded", "failed", "cancelled")


def _project(args: argparse.Namespace) -> tuple[str, Path]:
    """The server's project holding the pipeline file: its id and folder."""
    file = Path(os.path.realpath(args.file))
    for project in call_server(args, "GET", "/api/projects"):
        folder = Path(os.path.realpath(project["path"]))
        if file.is_relative_to(folder):
            return str(project["id"]), folder
    raise RemoteFailed(f"no project of the server holds {file}")


def _relative(path: Path, folder: Path) -> str:
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(folder):
        raise RemoteFailed(f"{path} is not in the project's folder {folder}")
    return real.relative_to(folder).as_posix()


def _followed(args: argparse.Namespace, run_id: str) -> dict[str, Any]:
    while True:
        run = call_server(args, "GET", f"/api/tool-runs/{run_id}")
        if run["status"] in FINAL:
            return dict(run)
        time.sleep(POLL_SECONDS)  # the server's run is the clock; nothing here to wait on instead


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(list(argv))
    try:
        if not args.server:
            raise RemoteFailed("--device needs --server URL --token-file FILE")
        pid, folder = _project(args)
        body = {"pipeline": _relative(args.file, folder),
                "inputs": [_relative(i, folder) for i in args.input],
                "device_id": args.device, "variants": variants(args.variant) or None}
        run = _followed(args, call_server(args, "POST", f"/api/projects/{pid}/pipelines/run", body)["id"])
    except (RemoteFailed, argparse.ArgumentTypeError) as exc:
        print(f"mnnwb pipeline: {exc}", file=sys.stderr)
        return 2
    if run["status"] != "succeeded":
        print(f"mnnwb pipeline: the run {run['status']}: {run.get('error')}", file=sys.stderr)
        return 1
    result = run["result"]
    for failed in result["failed"]:
        print(f"{failed['input']}: {failed['reason']}", file=sys.stderr)
    for entry in result["inputs"]:
        print(json.dumps(entry) if args.json else text(entry), flush=True)
    return 1 if result["failed"] else 0
