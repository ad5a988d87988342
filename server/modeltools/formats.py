"""Model file kinds: what each extension means and a cheap check that the bytes agree.

These checks read a few bytes only; they run in the server before a worker starts so that a
missing, empty, mislabelled or random file gets a clear error at once. The worker then does the
deep checks (a full parse) before any native code touches the file.
"""

import struct
from pathlib import Path

FRAMEWORKS = {
    ".onnx": "ONNX",
    ".tflite": "TFLITE",
    ".pb": "TF",
    ".caffemodel": "CAFFE",
    ".prototxt": "CAFFE",
    ".mnn": "MNN",
}
MODEL_SUFFIXES = tuple(FRAMEWORKS)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")
SEQUENCE_SUFFIXES = (".txt", ".npy")


class BadModelFile(ValueError):
    """The file cannot be a model of the kind its name says."""


def framework_of(path: Path) -> str:
    try:
        return FRAMEWORKS[path.suffix.lower()]
    except KeyError:
        known = " ".join(MODEL_SUFFIXES)
        raise BadModelFile(
            f"{path.name}: unsupported model type {path.suffix or '(no extension)'!r}; "
            f"expected one of {known}"
        ) from None


def _looks_like_flatbuffer(head: bytes, size: int) -> bool:
    if len(head) < 8:
        return False
    (root,) = struct.unpack_from("<I", head)
    return 4 <= root < size and root % 4 == 0


def _looks_like_protobuf(head: bytes) -> bool:
    # A serialized ModelProto/GraphDef starts with a field key: wire type 0 or 2, field 1..15.
    key = head[0]
    return key & 0x07 in (0, 2) and 1 <= key >> 3 <= 15


def _sniff(framework: str, suffix: str, head: bytes, size: int) -> bool:
    if framework == "MNN":
        return _looks_like_flatbuffer(head, size)
    if framework == "TFLITE":
        return head[4:8] == b"TFL3"
    if suffix == ".prototxt":
        return b"\x00" not in head
    if framework == "ONNX":
        # ModelProto's field 1 (ir_version, a varint) comes first in every writer's output.
        return head[:1] == b"\x08"
    return _looks_like_protobuf(head)


def check_model_file(path: Path, allowed: tuple[str, ...] = MODEL_SUFFIXES) -> str:
    """Return the file's framework, or raise ``BadModelFile`` with a reason a person can act on."""
    name = path.name
    if path.suffix.lower() not in allowed:
        raise BadModelFile(
            f"{name}: this tool takes {' '.join(allowed)} files, not {path.suffix or 'this file'}"
        )
    framework = framework_of(path)
    if not path.exists():
        raise BadModelFile(f"{name}: file not found")
    if not path.is_file():
        raise BadModelFile(f"{name}: not a regular file")
    size = path.stat().st_size
    if size == 0:
        raise BadModelFile(f"{name}: the file is empty")
    with path.open("rb") as handle:
        head = handle.read(64)
    if not _sniff(framework, path.suffix.lower(), head, size):
        raise BadModelFile(f"{name}: the content is not a {framework} model (wrong or corrupt file)")
    return framework


def calibration_files(folder: Path, input_type: str) -> list[Path]:
    """The usable calibration samples in ``folder``, sorted; raise if there are none.

    Images are files; a sequence sample is a ``.npy`` / ``.txt`` file (models with one input)
    or a sub-folder holding one ``<input name>.npy|.txt`` per input.
    """
    if not folder.is_dir():
        raise BadModelFile(f"{folder.name}: calibration folder not found")
    suffixes = IMAGE_SUFFIXES if input_type == "image" else SEQUENCE_SUFFIXES
    samples = sorted(
        p
        for p in folder.iterdir()
        if (p.is_file() and p.suffix.lower() in suffixes and p.stat().st_size > 0)
        or (input_type == "sequence" and p.is_dir() and not p.name.startswith("."))
    )
    if not samples:
        kinds = " ".join(suffixes) + (" files or sample folders" if input_type == "sequence" else "")
        raise BadModelFile(f"{folder.name}: no calibration samples ({kinds}) in the folder")
    return samples
