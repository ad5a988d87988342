"""``mnnwb playground run PATH [--photo FILE | --video FILE] [--frames N] [--json]``: a
playground project on this machine without a browser. Every kit call is printed — with ``--json``
as one JSON object per line (labels, rects, points, images as shape and hash), else as a line of
text — the way CI tests a playground. The script's own output goes to stderr. The exit code is the
run's."""

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import device_bridge
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


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="mnnwb playground", description="run a playground project "
                                     "(docs/playground.md)")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run it here and print its kit calls")
    run.add_argument("path", help="the project folder (with app.mnnplayground)")
    source = run.add_mutually_exclusive_group()
    source.add_argument("--photo", help="the photo selectPhoto gets, relative to the project")
    source.add_argument("--video", help="the .y4m video setCamera gets, relative to the project")
    run.add_argument("--frames", type=int, default=DEFAULT_FRAMES, help="how many of its frames")
    run.add_argument("--json", action="store_true", help="one JSON object per kit call")
    args = parser.parse_args(list(argv))
    command = [sys.executable, "-m", "device_bridge.playground.run", args.path, "--frames", str(args.frames)]
    command += ["--photo", args.photo] if args.photo else []
    command += ["--video", args.video] if args.video else []
    path = os.pathsep.join(filter(None, [PACKAGE_PARENT, os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if not line.startswith(MARK):
                sys.stderr.write(line)
                continue
            event = json.loads(line[len(MARK):])
            print(json.dumps(event) if args.json else _text(event), flush=True)
    return proc.returncode
