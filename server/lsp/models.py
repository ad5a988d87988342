"""Payloads of the language features' HTTP routes: a language server's edits applied to files no
editor has open, and each person's editor settings (docs/ide.md)."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, model_validator
from sqlmodel import Field as SqlField
from sqlmodel import SQLModel

from server.core.db import utcnow
from server.search.models import FileSkipped, LineChange, Text

MAX_LINES = 10_000_000
# Edits in one request, over all its files (a rename across a large project is a few thousand).
MAX_EDITS = 100_000


class Position(BaseModel):
    """0-based; ``character`` in UTF-16 code units, as the language server protocol counts."""

    line: int = Field(ge=0, le=MAX_LINES)
    character: int = Field(ge=0, le=MAX_LINES)


class Range(BaseModel):
    start: Position
    end: Position


class TextEdit(BaseModel):
    """The protocol's ``TextEdit``: ``newText`` replaces ``range``."""

    range: Range
    newText: str = Field(max_length=1_000_000)  # the protocol's name


class FileEdits(BaseModel):
    path: Text = Field(max_length=4096)
    edits: list[TextEdit] = Field(min_length=1, max_length=10_000)


def _few_enough_edits(data: Any) -> Any:
    """Counted on the raw body, before any edit is parsed: a body of millions of edits is refused
    at once instead of being validated one by one."""
    if isinstance(data, dict) and isinstance(data.get("files"), list):
        files = [f for f in data["files"] if isinstance(f, dict) and isinstance(f.get("edits"), list)]
        total = sum(len(f["edits"]) for f in files)
        if total > MAX_EDITS:
            raise ValueError(f"{total} edits in one request; at most {MAX_EDITS}")
    return data


class EditsPreviewRequest(BaseModel):
    files: list[FileEdits] = Field(min_length=1, max_length=1000)

    _limit = model_validator(mode="before")(_few_enough_edits)


class FileEditsPreview(BaseModel):
    path: str
    etag: str
    changes: list[LineChange]


class EditsPreview(BaseModel):
    files: list[FileEditsPreview]
    skipped: list[FileSkipped]


class FileEditsApply(FileEdits):
    etag: Text = Field(max_length=64)


class EditsApplyRequest(BaseModel):
    files: list[FileEditsApply] = Field(min_length=1, max_length=1000)

    _limit = model_validator(mode="before")(_few_enough_edits)


class FileEdited(BaseModel):
    """A file written: its new ``etag``, and the edits that bring it back (``undo``), to be
    applied with that etag."""

    path: str
    etag: str
    undo: list[TextEdit]


class EditsResult(BaseModel):
    applied: list[FileEdited]
    skipped: list[FileSkipped]


class EditorSettingsBody(BaseModel):
    format_on_save: bool


class EditorSettingsOut(BaseModel):
    format_on_save: bool


class EditorSettings(SQLModel, table=True):
    """One person's editor settings; a person without a row has the defaults."""

    __tablename__ = "editor_settings"

    user_id: str = SqlField(foreign_key="users.id", ondelete="CASCADE", primary_key=True, max_length=32)
    format_on_save: bool = False
    updated_at: datetime = SqlField(default_factory=utcnow)
