"""``mnnwb pipeline run FILE --input PATH [--input PATH …] [--json]``: a pipeline on images (or
folders of them) on this machine, without a server; with ``--json``, one JSON object per input
(each stage's items and ms, the timeline, the end-to-end ms), else a line per stage."""

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from device_bridge.runtime import pipeline, preprocess


@contextlib.contextmanager
def _native_prints_to_stderr() -> Iterator[None]:
    """MNN prints from C++ to file descriptor 1 ("The device supports: …"): keep stdout for the
    results."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _text(result: dict) -> str:
    lines = [f"{result['input']}: {result['ms']:.1f} ms"]
    for stage in result["stages"]:
        lines.append(
            f"  {stage['id']:<16} {stage['kind']:<6} {stage['ms']:8.2f} ms  {len(stage['items'])} item(s)"
        )
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="mnnwb pipeline", description="run a pipeline (docs/pipelines.md)")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a pipeline on images")
    run.add_argument("file", type=Path, help="the pipeline.toml")
    run.add_argument(
        "--input", action="append", required=True, type=Path, help="an image or a folder of them"
    )
    run.add_argument("--json", action="store_true", help="one JSON object per input")
    args = parser.parse_args(list(argv))
    try:
        with _native_prints_to_stderr():
            runner = pipeline.Runner(pipeline.load(args.file))
    except (pipeline.PipelineError, OSError) as exc:
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 2
    files = [p for p in preprocess.expand(args.input) if p.suffix.lower() in preprocess.IMAGE_SUFFIXES]
    if not files:
        print("no image among the inputs (.jpg .jpeg .png .bmp, or a folder of them)", file=sys.stderr)
        return 2
    status = 0
    for path in files:
        try:
            with _native_prints_to_stderr():
                result = {"input": str(path), **runner.run(path)}
        except preprocess.InputFileError as exc:
            print(f"{path}: {exc.reason}", file=sys.stderr)
            status = 1
            continue
        except pipeline.PipelineError as exc:
            print(f"{path}: {exc}", file=sys.stderr)
            return 1
        print(json.dumps(result) if args.json else _text(result), flush=True)
    return status


if __name__ == "__main__":  # python -m device_bridge.runtime.pipeline_cli (on a device: the agent's)
    sys.exit(main(sys.argv[1:]))
