"""The ``app.mnnplayground`` file: ``{"applicationName", "entryFile", "modelName"}`` as JSON."""

import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

APP_FILE = "app.mnnplayground"
MAX_BYTES = 64 * 1024


class AppFileError(ValueError):
    """The app file is missing, not JSON, or names an entry file that is not in the project."""


@dataclass(frozen=True)
class PlaygroundApp:
    name: str
    entry: str  # project-relative, POSIX
    model_name: str

    def to_dict(self) -> dict[str, str]:
        return {"application_name": self.name, "entry_file": self.entry, "model_name": self.model_name}


def _text(data: dict, key: str, default: str = "") -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or len(value) > 256:
        raise AppFileError(f"{APP_FILE}: {key!r} must be a string of at most 256 characters")
    return value


def parse(text: str) -> PlaygroundApp:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise AppFileError(f"{APP_FILE} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise AppFileError(f"{APP_FILE} must hold a JSON object")
    entry = _text(data, "entryFile", "/main.py")
    relative = PurePosixPath(entry.lstrip("/"))
    if not relative.parts or ".." in relative.parts or relative.suffix != ".py":
        raise AppFileError(f"{APP_FILE}: entryFile {entry!r} must name a .py file inside the project")
    return PlaygroundApp(_text(data, "applicationName", "Playground"), relative.as_posix(),
                         _text(data, "modelName"))


def load(folder: Path) -> PlaygroundApp | None:
    """The folder's playground app, None when it is not a playground project."""
    path = folder / APP_FILE
    if not path.is_file():
        return None
    if path.stat().st_size > MAX_BYTES:
        raise AppFileError(f"{APP_FILE} is over {MAX_BYTES} bytes")
    return parse(path.read_text(encoding="utf-8", errors="replace"))
