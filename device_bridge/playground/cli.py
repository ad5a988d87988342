"""``mnnwb playground run PATH [--photo FILE | --video FILE | --camera DEVICE] [--frames N] [--json]
[--device ID --server URL --token-file FILE]``: a playground project without a browser, on this
machine or on a paired device through a workbench server (``remote.py``). Every kit call is
printed — with ``--json`` as one JSON object per line (labels, rects, points, images as shape and
hash), else as a line of text — the way CI tests a playground. The script's own output goes to
stderr. The exit code is the run's; 2 when the server or the device cannot run it."""

import argparse
import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import device_bridge
from device_bridge.playground import remote
from device_bridge.playground.kit import MARK
from device_bridge.playground.run import DEFAULT_FRAMES

PACKAGE_PARENT = str(Path(device_bridge.__file__).resolve().parents[1])


def _text(event: dict[str, Any]) -> str:
    call, frame = event["call"], event.get("frame")
    at = f"[frame {frame}] " if frame is not None else ""
    details = {k: v for k, v in event.items() if k not in ("call", "frame")}
    if call == "setLabel":
        return f"{at}label {event['index']}: {event['text']}"
    if call == "drawRects":
        pairs = zip(event["rects"], event["texts"], strict=True)
        return at + "rects " + ", ".join(f"{text} {rect}" for rect, text in pairs)
    if "image" in details:
        image = details.pop("image")
        details["image"] = f"{'×'.join(map(str, image['shape']))} {image['sha256']}"
    return f"{at}{call} " + " ".join(f"{k}={v}" for k, v in details.items())


class Printer:
    """The run's stdout, split into lines: kit calls printed, the script's own lines to stderr."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.partial = ""

    def line(self, line: str) -> None:
        if not line.startswith(MARK):
            sys.stderr.write(line)
            return
        event = json.loads(line[len(MARK):])
        print(json.dumps(event) if self.as_json else _text(event), flush=True)

    def output(self, stream: str, text: str) -> None:
        if stream != "stdout":
            sys.stderr.write(text)
            return
        *lines, self.partial = (self.partial + text).split("\n")
        for line in lines:
            self.line(line + "\n")

    def flush(self) -> None:
        if self.partial:
            self.line(self.partial)
        self.partial = ""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mnnwb playground", description="run a playground project "
                                     "(docs/playground.md)")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run it here, or on a paired device, and print its kit calls")
    run.add_argument("path", help="the project folder (with app.mnnplayground)")
    source = run.add_mutually_exclusive_group()
    source.add_argument("--photo", help="the photo selectPhoto gets, relative to the project")
    source.add_argument("--video", help="the video setCamera gets, relative to the project (.y4m, or "
                        "what OpenCV decodes)")
    source.add_argument("--camera", metavar="DEVICE", help="setCamera gets the camera of the machine "
                        "that runs it (0, /dev/video0; with OpenCV)")
    run.add_argument("--width", type=int, help="the camera's frames scaled to this width")
    run.add_argument("--frames", type=int, default=DEFAULT_FRAMES, help="how many of its frames")
    run.add_argument("--json", action="store_true", help="one JSON object per kit call")
    run.add_argument("--device", metavar="ID", help="run on this paired device (with --server)")
    run.add_argument("--server", metavar="URL", help="the workbench server the device is paired with")
    run.add_argument("--token-file", metavar="FILE", help="the server's API token (with --server)")
    run.add_argument("--project", metavar="ID", help="the project's id on the server (default: by folder)")
    return parser


def _run_here(args: argparse.Namespace, argv: list[str], printer: Printer) -> int:
    path = os.pathsep.join(filter(None, [PACKAGE_PARENT, os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    command = [sys.executable, "-m", "device_bridge.playground.run", args.path, *argv]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            printer.line(line)
    return proc.returncode


def _run_on_device(args: argparse.Namespace, argv: list[str], printer: Printer) -> int:
    server = remote.Server.from_args(args.server, args.token_file)
    pid = remote.project_id(server, args.path, args.project)
    command = ["-m", "device_bridge.playground.run", ".", *argv]
    try:
        return asyncio.run(remote.run_on_device(server, pid, args.device, command, printer.output))
    finally:
        printer.flush()


def main(argv: Sequence[str]) -> int:
    parser = _parser()
    args = parser.parse_args(list(argv))
    if (args.device is None) != (args.server is None):
        parser.error("--device and --server go together: the device runs it through that server")
    run_args = ["--frames", str(args.frames)]
    run_args += ["--photo", args.photo] if args.photo else []
    run_args += ["--video", args.video] if args.video else []
    run_args += ["--camera", args.camera] if args.camera else []
    run_args += ["--width", str(args.width)] if args.width else []
    printer = Printer(args.json)
    if args.device is None:
        return _run_here(args, run_args, printer)
    try:
        return _run_on_device(args, run_args, printer)
    except remote.RemoteError as exc:
        print(f"playground: {exc}", file=sys.stderr)
        return 2
