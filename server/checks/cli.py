"""``mnnwb check [PROJECT_DIR] [--junit FILE] [--device NAME] [--server URL --token-file FILE]``.

Runs the project's budgets here, with no server (the model tools run as local workers), or asks
a running workbench to run them. Prints a table; exits 0 when every budget holds, 1 when one
fails, 2 when the checks cannot run (no or malformed ``mnnwb.toml``, server unreachable).
"""

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from server.checks.models import CheckReport
from server.checks.report import table, write_junit
from server.checks.service import run_checks
from server.core.errors import AppError
from server.core.remote import RemoteFailed, call_server


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
