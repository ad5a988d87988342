"""Lineage: which tool runs and jobs made or used each file, keyed by the file's content hash.

A ``LineageLink`` says "the file with this sha256 was made by (``role="made"``) or used as an
input of (``role="used"``) this tool run or job". Links are written when a run or job ends and
when a job's artifacts are pulled, so the chain survives renames inside the project and restarts.
``LineageGraph`` is what ``GET /api/projects/{pid}/lineage`` answers and what a published market
version stores.
"""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import JSON, BigInteger, Column
from sqlmodel import Field as SqlField
from sqlmodel import SQLModel

from server.core.db import utcnow

LinkRole = Literal["made", "used"]
LinkKind = Literal["tool_run", "job"]
NodeKind = Literal["file", "tool_run", "job", "commit", "run"]


class LineageLink(SQLModel, table=True):
    __tablename__ = "lineage_links"

    id: int | None = SqlField(default=None, primary_key=True)
    project_id: str = SqlField(foreign_key="projects.id", ondelete="CASCADE", max_length=32)
    sha256: str = SqlField(index=True, max_length=64)
    role: str = SqlField(max_length=8)
    kind: str = SqlField(max_length=16)
    ref_id: str = SqlField(index=True, max_length=32)
    path_at_time: str = SqlField(max_length=4096)
    size: int = SqlField(default=0, sa_type=BigInteger)
    facts: dict[str, Any] = SqlField(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = SqlField(default_factory=utcnow)


class LineageNode(BaseModel):
    """``id`` is ``<kind>:<sha256 or row id>``; ``data`` holds what the UI shows of the node."""

    id: str
    kind: NodeKind
    label: str
    data: dict[str, Any] = Field(default_factory=dict)


class LineageEdge(BaseModel):
    """Data flows from ``source`` to ``target``: commit → job → file → tool run → file → run."""

    source: str
    target: str
    kind: Literal["built", "made", "input", "measured"]


class LineageGraph(BaseModel):
    """The asked-for file is the first node."""

    nodes: list[LineageNode] = Field(default_factory=list)
    edges: list[LineageEdge] = Field(default_factory=list)
