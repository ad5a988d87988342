"""Algorithm packages, format 1: the parsed ``algorithm.toml`` and checks of a package folder.

A package is a folder holding ``algorithm.toml`` and every file it lists, each with its sha256
and size (docs/market.md, "Package format").
"""

import hashlib
import json
import math
import shutil
import tomllib
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.market import safety

MANIFEST_NAME = "algorithm.toml"
PACKAGE_ID = r"^[a-z0-9][a-z0-9-]{0,63}$"
VERSION = r"^[0-9A-Za-z.+-]{1,32}$"
SHA256 = r"^[0-9a-f]{64}$"
MAX_FILES = 1000

FileRole = Literal["model", "source-model", "demo", "readme", "sample", "labels", "other"]
ShortText = Annotated[str, Field(max_length=200)]


class TamperedFile(Invalid):
    """A package file whose content is not what its manifest says."""

    code = ErrorCode.CHECKSUM_MISMATCH


class FileEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1, max_length=1024)
    sha256: str = Field(pattern=SHA256)
    size: int = Field(ge=0)
    role: FileRole = "other"

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        pure = PurePosixPath(value)
        if pure.is_absolute() or "\\" in value or any(p in ("", ".", "..") for p in value.split("/")):
            raise ValueError(f"{value!r} is not a plain relative path inside the package")
        if pure.parts[0] in (".git", MANIFEST_NAME):
            raise ValueError(f"{value!r} may not be listed as a package file")
        return value


class InputSpec(BaseModel):
    """One model input and the pre-processing a caller applies before feeding it."""

    model_config = ConfigDict(extra="allow")

    name: ShortText
    shape: list[int] = Field(default_factory=list, max_length=8)
    dtype: ShortText = "float32"
    layout: ShortText | None = None
    size: list[int] | None = Field(default=None, max_length=4)
    mean: list[float] | None = Field(default=None, max_length=4096)
    std: list[float] | None = Field(default=None, max_length=4096)
    description: Annotated[str, Field(max_length=1000)] = ""
    # As a model spec gives them (docs/model-spec.md): a shape for the dims left dynamic (-1),
    # what the input is, and for an image the colour order, the resize and the scale.
    default_shape: list[int] | None = Field(default=None, max_length=8)
    kind: ShortText | None = None
    color: ShortText | None = None
    resize: ShortText | None = None
    scale: float | None = None


class OutputSpec(BaseModel):
    """One model output and how to read it: class labels (inline or in a listed file) or a
    score threshold."""

    model_config = ConfigDict(extra="allow")

    name: ShortText
    shape: list[int] = Field(default_factory=list, max_length=8)
    dtype: ShortText = "float32"
    labels: list[ShortText] | None = Field(default=None, max_length=100_000)
    labels_file: str | None = Field(default=None, max_length=1024)
    threshold: float | None = None  # a score above it is the positive answer (anomaly)
    kind: ShortText | None = None  # what the values mean, as a model spec says (logits, boxes…)
    description: Annotated[str, Field(max_length=1000)] = ""


class LatencyFigure(BaseModel):
    model_config = ConfigDict(extra="allow")

    device: ShortText
    threads: int = Field(default=1, ge=1, le=1024)
    median_ms: float = Field(ge=0)
    runs: int = Field(default=1, ge=1)


class Metrics(BaseModel):
    """Figures measured on the package's model; more named figures (``f1``, ``auc``…) may follow."""

    model_config = ConfigDict(extra="allow")

    accuracy: float | None = Field(default=None, ge=0, le=1)
    eval_set: Annotated[str, Field(max_length=500)] | None = None
    size_bytes: int | None = Field(default=None, ge=0)
    latency: list[LatencyFigure] = Field(default_factory=list, max_length=100)


class Demo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entry: str = Field(default="demo.py", max_length=1024)
    args: list[Annotated[str, Field(max_length=1024)]] = Field(default_factory=list, max_length=64)


class PackageManifest(BaseModel):
    """``algorithm.toml``, format 1."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    id: str = Field(pattern=PACKAGE_ID)
    version: str = Field(pattern=VERSION)
    name: ShortText
    task: ShortText = ""
    summary: Annotated[str, Field(max_length=1000)] = ""
    license: ShortText = ""
    authors: list[ShortText] = Field(default_factory=list, max_length=100)
    inputs: list[InputSpec] = Field(default_factory=list, max_length=64)
    outputs: list[OutputSpec] = Field(default_factory=list, max_length=64)
    metrics: Metrics = Field(default_factory=Metrics)
    demo: Demo | None = None
    files: list[FileEntry] = Field(default_factory=list, max_length=MAX_FILES)

    @field_validator("files")
    @classmethod
    def _unique_paths(cls, files: list[FileEntry]) -> list[FileEntry]:
        seen: set[str] = set()
        for entry in files:
            if entry.path in seen:
                raise ValueError(f"{entry.path!r} is listed twice")
            seen.add(entry.path)
        return files

    def size_bytes(self) -> int:
        return sum(entry.size for entry in self.files)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "manifest"
    return f"{where}: {error['msg']}"


def parse_manifest(text: str) -> PackageManifest:
    """Parse an ``algorithm.toml``; a bad one raises ``Invalid`` (code ``bad_manifest``)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Invalid(f"{MANIFEST_NAME} is not valid TOML: {exc}", code=ErrorCode.BAD_MANIFEST) from None
    try:
        return PackageManifest.model_validate(data)
    except ValidationError as exc:
        raise Invalid(f"{MANIFEST_NAME}: {_first_error(exc)}", code=ErrorCode.BAD_MANIFEST) from None


def read_manifest(folder: Path) -> PackageManifest:
    path = folder / MANIFEST_NAME
    if not path.is_file():
        raise Invalid(f"{folder.name} has no {MANIFEST_NAME}", code=ErrorCode.BAD_MANIFEST)
    return parse_manifest(path.read_text(encoding="utf-8"))


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_folder(folder: Path, manifest: PackageManifest) -> None:
    """Check ``folder`` holds only plain files and folders (``safety.check_folder``: no symlink,
    so nothing listed is read from outside it) and every listed file with its size and sha256.

    Raises ``UnsafeEntry`` or ``TamperedFile`` naming the first bad entry; reads only.
    """
    safety.check_paths(entry.path for entry in manifest.files)
    safety.check_folder(folder)
    for entry in manifest.files:
        path = folder / entry.path
        if not path.is_file():
            raise TamperedFile(f"{entry.path} is missing from the package", path=entry.path)
        if path.stat().st_size != entry.size or sha256_file(path) != entry.sha256:
            raise TamperedFile(f"{entry.path} does not match its sha256 in {MANIFEST_NAME}",
                               path=entry.path)


def copy_package(folder: Path, manifest: PackageManifest, dest: Path) -> None:
    """Copy ``algorithm.toml`` and the files it lists (nothing else) from ``folder`` into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(folder / MANIFEST_NAME, dest / MANIFEST_NAME)
    for entry in manifest.files:
        target = dest / entry.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / entry.path, target)


def file_entry(folder: Path, rel: str, role: FileRole) -> FileEntry:
    """The manifest entry of a file already in ``folder``."""
    path = folder / rel
    return FileEntry(path=rel, sha256=sha256_file(path), size=path.stat().st_size, role=role)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return ("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
                if math.isinf(value) else repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _is_table_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _toml_table(data: dict[str, Any], prefix: str) -> list[str]:
    lines = [f"{key} = {_toml_value(value)}" for key, value in data.items()
             if value is not None and not isinstance(value, dict) and not _is_table_list(value)]
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            lines += ["", f"[{name}]", *_toml_table(value, f"{name}.")]
        elif _is_table_list(value):
            for item in value:
                lines += ["", f"[[{name}]]", *_toml_table(item, f"{name}.")]
    return lines


def dump_manifest(manifest: PackageManifest) -> str:
    """The ``algorithm.toml`` text of a manifest (``parse_manifest`` reads it back equal)."""
    data = manifest.model_dump(mode="json", exclude_none=True)
    return "\n".join(_toml_table(data, "")) + "\n"
