"""Tool runs: one durable row per convert / quantize / inspect / compare / benchmark run."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel
from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from server.core.db import new_id, utcnow

RunStatus = Literal["queued", "running", "succeeded", "failed", "crashed", "cancelled"]
ACTIVE: tuple[str, ...] = ("queued", "running")


class ToolRun(SQLModel, table=True):
    __tablename__ = "tool_runs"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    project_id: str = Field(foreign_key="projects.id", index=True, max_length=32)
    tool: str = Field(max_length=16)
    status: str = Field(default="queued", index=True, max_length=16)
    args: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    result: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    error: str | None = Field(default=None, max_length=8000)
    error_code: str | None = Field(default=None, max_length=64)
    log_path: str = Field(max_length=4096)
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None


class ToolRunPublic(BaseModel):
    id: str
    project_id: str
    tool: str
    status: RunStatus
    args: dict[str, Any]
    result: dict[str, Any] | None
    error: str | None
    error_code: str | None = None
    created_at: datetime
    finished_at: datetime | None


class ToolLog(BaseModel):
    """A slice of a run's log: ``text`` from byte ``offset``; ask again from ``next_offset``."""

    offset: int
    next_offset: int
    text: str
    complete: bool
