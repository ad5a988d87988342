"""File payloads."""

from typing import Literal

from pydantic import BaseModel, Field


class Entry(BaseModel):
    name: str
    path: str
    type: Literal["file", "dir"]
    size: int
    mtime: float


class FileContent(BaseModel):
    path: str
    content: str | None
    etag: str
    encoding: str | None
    binary: bool
    size: int


class FileSave(BaseModel):
    content: str
    etag: str | None = None
    encoding: str | None = None


class Saved(BaseModel):
    path: str
    etag: str
    size: int


class FileOp(BaseModel):
    op: Literal["mkdir", "create", "rename", "delete"]
    path: str = Field(max_length=4096)
    to: str | None = Field(default=None, max_length=4096)


class OpResult(BaseModel):
    path: str
    trash_id: str | None = Field(default=None, description="a delete's entry in the project's "
                                 "trash: POST …/files/trash/{trash_id}/restore puts it back")
