"""Calls into MNN's native converter and quantizer, capturing what they print.

Only ``_tools.mnnconvert`` / ``_tools.mnnquant`` are used: the ``MNN.tools`` Python wrappers and
the console scripts send telemetry over the network, so this module never imports them. The
native tools print to the C ``stdout`` and report nothing useful through their return value, so
their output is captured at the file-descriptor level and success is decided from it.

The capture file lives in the working folder (the run's folder) so that, should the native code
crash mid-call, what it printed is still on disk for the crash report.
"""

import ctypes
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from server.core.fsutil import disk_full, publish
from server.modeltools.errors import ToolFailed

NATIVE_LOG = "native.log"
# What the run's error says if native code kills the worker during the call that follows
# (written by the tool beforehand, read by the runner: the worker is gone by then).
CRASH_HINT = "crash-hint.txt"
CONVERT_SUCCESS = "Converted Success!"

_libc = ctypes.CDLL(None)


def flush_all() -> None:
    """Python's and the C library's buffered output, written out."""
    sys.stdout.flush()
    sys.stderr.flush()
    _libc.fflush(None)


def run_captured(argv0: str, argv: list[str]) -> str:
    """Run one native tool with fd 1 and 2 sent to ``native.log``; echo and return the text."""
    import _tools  # the native extension only; see the module docstring

    tool = {"mnnconvert": _tools.mnnconvert, "mnnquant": _tools.mnnquant}[argv0]
    path = Path(NATIVE_LOG)
    flush_all()
    saved = os.dup(1), os.dup(2)
    with path.open("ab") as capture:
        start = capture.tell()
        os.dup2(capture.fileno(), 1)
        os.dup2(capture.fileno(), 2)
        try:
            tool([argv0, *argv])
        finally:
            flush_all()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
    with path.open("rb") as capture:
        capture.seek(start)
        text = capture.read().decode("utf-8", "replace")
    sys.stdout.write(text)
    sys.stdout.flush()
    return text


@contextmanager
def captured() -> Iterator[None]:
    """Inside the block, what native code prints (fd 1 and 2) goes to ``native.log`` instead of
    the worker's log: MNN's image decoder prints ``Can't decode`` for each file it refuses."""
    flush_all()
    saved = os.dup(1), os.dup(2)
    with Path(NATIVE_LOG).open("ab") as capture:
        os.dup2(capture.fileno(), 1)
        os.dup2(capture.fileno(), 2)
        try:
            yield
        finally:
            flush_all()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def crash_hint(text: str) -> None:
    """Say what a crash in the next native call most likely means (runner's ``_explain``)."""
    Path(CRASH_HINT).write_text(text)


def convert(argv: list[str]) -> str:
    return run_captured("mnnconvert", argv)


def quantize(src: str, dst: str, config_json: str) -> str:
    return run_captured("mnnquant", [src, dst, config_json])


def bool_flag(name: str, value: bool) -> list[str]:
    """A converter flag that reads its value: always spelled ``--flag=1|0``.

    Bare flags of this kind are read inverted by MNN 3.6.1 (bare ``--keepInputFormat`` turns
    it off), so the value is always written out.
    """
    return [f"--{name}={1 if value else 0}"]


def presence_flag(name: str, value: bool) -> list[str]:
    """A converter flag that MNN 3.6.1 reads by presence only (``--fp16=0`` still means fp16)."""
    return [f"--{name}=1"] if value else []


def error_summary(text: str) -> str:
    """The native tool's error lines, de-duplicated, in order, without their ``[ERROR]`` tag."""
    errors = [
        line.replace("[ERROR]", "").strip()
        for line in text.splitlines()
        if "error" in line.lower() or "failed" in line
    ]
    return "; ".join(dict.fromkeys(errors))[:1000]


@contextmanager
def atomic_output(final: Path) -> Iterator[Path]:
    """A hidden file beside ``final`` to write into; it replaces ``final`` only if the block
    succeeds, so a failed run never destroys a model that was already there.

    A converter that runs out of disk space does not say so: it stops writing and may even
    report success. So a disk found full after the block (judged before the partial file gives
    its space back) fails the run, whatever the tool said.
    """
    partial = final.with_name(f".{final.name}.{os.getpid()}.part")
    full = False
    try:
        yield partial
        full = disk_full(final.parent)
        if not full:
            publish(partial, final)
    except Exception:
        full = disk_full(final.parent)
        if not full:
            raise
    finally:
        partial.unlink(missing_ok=True)
        # mnnquant leaves a ``<output>.json`` of its own beside the file it wrote.
        partial.with_name(partial.name + ".json").unlink(missing_ok=True)
    if full:
        raise ToolFailed(f"the disk is full: {final.name} was not written, "
                         "and the file that was there is unchanged")


def check_written(path: Path, text: str, marker: str, what: str) -> None:
    """Success is the tool's own success line plus a non-empty file, never its return value."""
    if marker not in text or not path.is_file() or path.stat().st_size == 0:
        reason = error_summary(text) or "no model was written"
        raise ToolFailed(f"{what} failed: {reason}")
