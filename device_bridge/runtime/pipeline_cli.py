"""``mnnwb pipeline run FILE --input PATH [--input PATH …] [--variant STAGE.KEY=VALUE …] [--json]``:
a pipeline on images (or folders of them) on this machine, without a server; with ``--json``, one
JSON object per input (each stage's items and ms, the timeline, the end-to-end ms), else a line
per stage. With ``--server URL --token-file FILE [--device ID]`` the server runs it (on that
paired device): ``server/modeltools/pipeline_remote.py``, with this parser."""

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from device_bridge.runtime import pipeline, preprocess
from device_bridge.runtime.pipeline_spec import VARIANT_KEYS


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


def variants(given: list[str]) -> dict[str, dict[str, str | int]]:
    """``--variant detect.model=det-int8.mnn`` → ``{"detect": {"model": "det-int8.mnn"}}``; a
    number is an integer."""
    found: dict[str, dict[str, str | int]] = {}
    for text in given:
        name, equals, value = text.partition("=")
        stage, dot, key = name.rpartition(".")
        if not equals or not dot or not stage or key not in VARIANT_KEYS:
            raise argparse.ArgumentTypeError(
                f"--variant {text!r}: expected STAGE.KEY=VALUE, KEY one of {', '.join(VARIANT_KEYS)}")
        found.setdefault(stage, {})[key] = int(value) if value.isdigit() else value
    return found


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mnnwb pipeline", description="run a pipeline (docs/pipelines.md)")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a pipeline on images")
    run.add_argument("file", type=Path, help="the pipeline.toml")
    run.add_argument(
        "--input", action="append", required=True, type=Path, help="an image or a folder of them"
    )
    run.add_argument("--variant", action="append", default=[], metavar="STAGE.KEY=VALUE",
                     help=f"run a model stage differently ({', '.join(VARIANT_KEYS)})")
    run.add_argument("--json", action="store_true", help="one JSON object per input")
    run.add_argument("--server", metavar="URL", help="ask this workbench server to run it")
    run.add_argument("--token-file", metavar="FILE", help="the server's API token (with --server)")
    run.add_argument("--device", metavar="ID", help="the paired device to run it on (with --server)")
    return parser


def text(result: dict) -> str:
    lines = [f"{result['input']}: {result['ms']:.1f} ms"]
    for stage in result["stages"]:
        lines.append(
            f"  {stage['id']:<16} {stage['kind']:<6} {stage['ms']:8.2f} ms  {len(stage['items'])} item(s)"
        )
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(list(argv))
    if args.server or args.device:
        print("--server and --device are for the workbench's own command line (mnnwb pipeline run)",
              file=sys.stderr)
        return 2
    try:
        chosen = variants(args.variant)
        with _native_prints_to_stderr():
            runner = pipeline.Runner(pipeline.with_variants(pipeline.load(args.file), chosen))
    except argparse.ArgumentTypeError as exc:
        print(exc, file=sys.stderr)
        return 2
    except (pipeline.PipelineError, OSError) as exc:
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 2
    readable = preprocess.IMAGE_SUFFIXES + preprocess.AUDIO_SUFFIXES
    files = [p for p in preprocess.expand(args.input) if p.suffix.lower() in readable]
    if not files:
        print("no image or audio among the inputs (.jpg .jpeg .png .bmp .wav, or a folder of them)",
              file=sys.stderr)
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
        print(json.dumps(result) if args.json else text(result), flush=True)
    return status


if __name__ == "__main__":  # python -m device_bridge.runtime.pipeline_cli (on a device: the agent's)
    sys.exit(main(sys.argv[1:]))
