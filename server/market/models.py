"""The team registry's tables: one row per published version, one per package id and the project
that owns it; files live by hash in the data dir."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel

from server.core.db import utcnow


class MarketVersion(SQLModel, table=True):
    """A published version: its whole manifest, the lineage of its model files, who and when."""

    __tablename__ = "market_versions"
    __table_args__ = (UniqueConstraint("package_id", "version", name="uq_market_version"),)

    id: int | None = Field(default=None, primary_key=True)
    package_id: str = Field(index=True, max_length=64)
    version: str = Field(max_length=32)
    manifest: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    readme: str = Field(default="", max_length=200_000)
    lineage: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    publisher: str = Field(max_length=64)
    project_id: str | None = Field(default=None, max_length=32)
    deprecated: bool = False
    published_at: datetime = Field(default_factory=utcnow)


class MarketPackage(SQLModel, table=True):
    """A package id of the registry and the project that owns it: the first to publish it, or the
    one an administrator handed it to. Only the owning project publishes new versions; ``None``
    (a first version from before projects were recorded) leaves that to an administrator."""

    __tablename__ = "market_packages"

    package_id: str = Field(primary_key=True, max_length=64)
    project_id: str | None = Field(default=None, max_length=32)
    since: datetime = Field(default_factory=utcnow)
