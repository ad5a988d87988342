"""Training jobs (the durable truth about every run) and each project's interpreter setting."""

from datetime import datetime
from typing import Any, Literal

from pydantic import Field as PydanticField
from pydantic import SecretStr
from sqlalchemy import JSON, Column, Text
from sqlmodel import Field, SQLModel

from server.core.db import new_id, utcnow
from server.training.runner import JobStatus


class Job(SQLModel, table=True):
    __tablename__ = "jobs"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    project_id: str = Field(foreign_key="projects.id", ondelete="CASCADE", index=True,
                            max_length=32)
    backend: str = Field(max_length=32)
    command: str = Field(max_length=4096)
    config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    commit: str | None = Field(default=None, max_length=64)
    status: str = Field(default="queued", index=True, max_length=16)
    reason: str | None = Field(default=None, max_length=2000)
    exit_code: int | None = None
    pid: int | None = None
    pid_started_at: float | None = None
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None


class ProjectRuntime(SQLModel, table=True):
    """The interpreter a project's local jobs use, when set explicitly."""

    __tablename__ = "project_runtimes"

    project_id: str = Field(foreign_key="projects.id", ondelete="CASCADE", primary_key=True,
                            max_length=32)
    interpreter: str = Field(max_length=4096)


class PaiDlcConfig(SQLModel, table=True):
    """The server's PAI-DLC settings (a single row). Secrets are stored sealed only."""

    __tablename__ = "pai_dlc_settings"

    id: int = Field(default=1, primary_key=True)
    settings: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    credential_source: str = Field(default="chain", max_length=16)
    access_key_id: str | None = Field(default=None, max_length=256)
    sealed_secret: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    updated_at: datetime = Field(default_factory=utcnow)


class JobCreate(SQLModel):
    """A job to run. For ``pai-dlc`` the code must be committed and pushed: with
    ``commit_and_push`` the server stages everything, commits with ``message`` and pushes
    (with the optional Git credentials, used for this call only) first."""

    backend: str = "local"
    command: str | None = PydanticField(default=None, max_length=4096)
    config: dict[str, Any] = PydanticField(default_factory=dict)
    commit_and_push: bool = False
    message: str | None = PydanticField(default=None, max_length=10000)
    author: str | None = PydanticField(default=None, max_length=512)
    remote: str | None = PydanticField(default=None, max_length=100)
    username: str | None = PydanticField(default=None, max_length=512)
    password: SecretStr | None = None


class JobRerun(SQLModel):
    """What a rerun changes of the job it repeats; left out, the job's own."""

    command: str | None = PydanticField(default=None, max_length=4096)
    config: dict[str, Any] | None = PydanticField(default=None, description=(
        "replaces the job's config as a whole (its env, cloud or Ray choices)"))


class JobPublic(SQLModel):
    id: str
    project_id: str
    backend: str
    command: str
    config: dict[str, Any]
    commit: str | None
    status: JobStatus
    reason: str | None
    exit_code: int | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class JobMetrics(SQLModel):
    job_id: str
    points: list[dict[str, Any]]


class RuntimePublic(SQLModel):
    interpreter: str
    source: Literal["setting", "venv", "server"]


class RuntimeUpdate(SQLModel):
    """``interpreter`` null clears the setting (back to the project venv or the server's)."""

    interpreter: str | None = PydanticField(default=None, max_length=4096)


class VenvCreate(SQLModel):
    inherit_server_packages: bool = True


class VenvStarted(SQLModel):
    path: str
    status: Literal["started"] = "started"


class RayClusterConfig(SQLModel, table=True):
    """Ray cluster settings: the team default (``project_id`` null) or one project's own.
    Secrets (the auth token, the S3 secret key) are stored sealed only."""

    __tablename__ = "ray_settings"

    id: int | None = Field(default=None, primary_key=True)
    project_id: str | None = Field(default=None, foreign_key="projects.id", ondelete="CASCADE",
                                   unique=True, max_length=32)
    settings: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    sealed_secrets: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    updated_at: datetime = Field(default_factory=utcnow)


class Sweep(SQLModel, table=True):
    """One job definition run over a grid of arguments: which jobs it made, with which values."""

    __tablename__ = "sweeps"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    project_id: str = Field(foreign_key="projects.id", ondelete="CASCADE", index=True,
                            max_length=32)
    backend: str = Field(max_length=32)
    command: str = Field(max_length=4096)
    grid: str = Field(max_length=4096)
    runs: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
