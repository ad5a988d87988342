"""Calibration images checked before the quantizer sees them.

MNN's quantizer decodes each image with stb_image; one it cannot decode (a truncated JPEG, a text
file named ``.png``) only makes it print ``input image error`` and still counts as a sample, of
whatever its input tensor held: the int8 model's cosines fall, or the quantizer crashes. So each
image is decoded first with the same decoder (``MNN.cv.imdecode``, stb_image too), and those it
refuses are skipped and named with the reason; a zero-byte file is one of them.

``MNN.cv.imdecode`` answers a refusal with a ``Var`` that holds no variable, and every attribute
of such a ``Var`` dereferences it and crashes the process. So the answer is read without MNN:
pymnn's ``PyMNNVar`` is a Python object header followed by a ``VARP*``, and a ``VARP`` is one
``std::shared_ptr<Variable>`` whose first word is the variable's address (``pymnn/src/expr.h``,
``include/MNN/expr/Expr.hpp`` of MNN). A known image and a known refusal check that reading once
per process.
"""

import ctypes
import struct
from pathlib import Path
from typing import Any

import MNN
import numpy as np

from server.modeltools import native
from server.modeltools.errors import ToolFailed
from server.modeltools.formats import IMAGE_SUFFIXES
from server.modeltools.progress import report

IMREAD_COLOR = 1  # MNN's CV::IMREAD_COLOR: three channels, as the quantizer reads them
_READ = {"PNG", "JPEG", "BMP"}
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "PNG"), (b"\xff\xd8\xff", "JPEG"), (b"BM", "BMP"), (b"GIF8", "GIF"),
    (b"II*\x00", "TIFF"), (b"MM\x00*", "TIFF"),
)
# a 1×1 24-bit BMP (file header, BITMAPINFOHEADER, one padded pixel): what the decoder must accept
_ONE_PIXEL_BMP = (b"BM" + struct.pack("<IHHI", 58, 0, 0, 54)
                  + struct.pack("<IiiHHIIiiII", 40, 1, 1, 1, 24, 0, 4, 2835, 2835, 0, 0)
                  + b"\x00\x00\xff\x00")
_checked = False


def _holds_nothing(var: Any) -> bool:
    """Whether a ``Var`` from ``imdecode`` is empty, read without touching it through MNN."""
    varp = ctypes.c_void_p.from_address(id(var) + object.__basicsize__).value
    return not varp or not ctypes.c_void_p.from_address(varp).value


def _decode(data: bytes) -> tuple[int, int] | None:
    """(height, width) of an image MNN's decoder reads, or None when it refuses it."""
    with native.captured():
        var = MNN.cv.imdecode(np.frombuffer(data, np.uint8), IMREAD_COLOR)
        if _holds_nothing(var):
            return None
        shape = list(var.shape)
    return (shape[0], shape[1]) if len(shape) == 3 and shape[0] > 0 and shape[1] > 0 else None


def _self_check() -> None:
    global _checked
    if _checked:
        return
    if type(MNN.cv.imdecode(np.frombuffer(_ONE_PIXEL_BMP, np.uint8), IMREAD_COLOR)).__basicsize__ \
            < object.__basicsize__ + ctypes.sizeof(ctypes.c_void_p):
        raise ToolFailed("this MNN build's image decoder answers in a form the calibration check "
                         "does not know: the images cannot be checked")
    if _decode(_ONE_PIXEL_BMP) != (1, 1) or _decode(b"not an image") is not None:
        raise ToolFailed("this MNN build's image decoder does not answer as MNN 3.6.1's does: "
                         "the calibration images cannot be checked")
    _checked = True


def _kind(data: bytes) -> str | None:
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    return next((kind for magic, kind in _SIGNATURES if data.startswith(magic)), None)


def _why_refused(data: bytes) -> str:
    """Why the decoder refused these bytes, as far as their structure tells."""
    kind = _kind(data)
    if kind is None:
        head = data[:512]
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and "\x00" not in text:
            return f"not an image: the file is text ({text[:24].strip()!r}…)"
        return "not an image: its bytes start like no PNG, JPEG or BMP file"
    if kind not in _READ:
        return f"a {kind} image: MNN's decoder reads PNG, JPEG and BMP only"
    if kind == "JPEG" and not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        return f"truncated JPEG: it ends before its end-of-image marker ({len(data)} bytes)"
    if kind == "PNG" and b"IEND" not in data[-64:]:
        return f"truncated PNG: it ends before its IEND chunk ({len(data)} bytes)"
    return f"corrupt {kind}: MNN's image decoder cannot decode it"


def problem(path: Path) -> str | None:
    """Why an image cannot be a calibration sample, or None when MNN decodes it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if not data:
        return "empty file (0 bytes)"
    return None if _decode(data) is not None else _why_refused(data)


def candidates(folder: Path) -> list[Path]:
    """The folder's image files by name, empty ones too (so they are named, not lost)."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)


def usable_images(folder: Path, limit: int | None,
                  files: list[Path] | None = None) -> tuple[list[Path], list[dict[str, str]]]:
    """Up to ``limit`` images MNN decodes, in name order (or ``files``, in their order, named
    relative to ``folder``: a dataset's), and ``[{file, reason}]`` of those it cannot; none
    usable fails the run (``no_usable_calibration``)."""
    _self_check()
    found = candidates(folder) if files is None else files
    usable: list[Path] = []
    skipped: list[dict[str, str]] = []
    for index, path in enumerate(found):
        if limit is not None and len(usable) >= limit:
            break
        reason = problem(path)
        if reason is None:
            usable.append(path)
        else:
            name = path.name if files is None else path.relative_to(folder).as_posix()
            skipped.append({"file": name, "reason": reason})
            print(f"calibration: skipped {name}: {reason}", flush=True)
        if index % 20 == 19:
            report(0.05 * (index + 1) / len(found), "checking calibration images")
    if not usable:
        named = "; ".join(f"{s['file']}: {s['reason']}" for s in skipped[:10])
        raise ToolFailed(f"no calibration image in {folder.name} can be decoded ({named})",
                         "no_usable_calibration")
    return usable, skipped
