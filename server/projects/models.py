"""Projects: a named folder owned by a user, opened one browser tab each."""

from datetime import datetime
from typing import Any, Literal

from sqlalchemy import JSON, Column, ForeignKey, String
from sqlmodel import Field, SQLModel

from server.core.db import new_id, utcnow


class Project(SQLModel, table=True):
    __tablename__ = "projects"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    name: str = Field(index=True, max_length=64)
    path: str = Field(unique=True, max_length=4096)
    template: str | None = Field(default=None, max_length=64)
    owner_id: str = Field(foreign_key="users.id", index=True, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)
    ui_state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    # "cloning" while a clone fills the folder (server/projects/cloning.py), else "ready".
    state: str = Field(default="ready", max_length=16)


# The names ``check_name`` (service.py) takes, for the API document; the service enforces them
# with its own message and code, so the pattern is documented rather than validated here.
NAME_SCHEMA = {"pattern": r"^[A-Za-z0-9](?:[A-Za-z0-9._ -]{0,62}[A-Za-z0-9_-])?$", "maxLength": 64}


ProjectState = Literal["ready", "cloning"]


class ProjectCreate(SQLModel):
    name: str = Field(schema_extra={"json_schema_extra": NAME_SCHEMA})
    template: str | None = None
    path: str | None = None
    git_url: str | None = None
    username: str | None = None
    password: str | None = None
    git: bool = Field(default=True, description=(
        "a new project from a template (or an empty one) is a Git repository with one commit "
        "of its files; false leaves it without one (docs/git.md, \"New projects\")"))


class ProjectUpdate(SQLModel):
    name: str = Field(schema_extra={"json_schema_extra": NAME_SCHEMA})


class ProjectPublic(SQLModel):
    id: str
    name: str
    path: str
    template: str | None
    owner: str
    created_at: datetime
    state: ProjectState
    kind: Literal["project", "playground"] = "project"
    playground: dict[str, str] | None = Field(default=None, description=(
        "a playground project's app file (application_name, entry_file, model_name), or error "
        "when it cannot be read (docs/playground.md)"))


class TemplateInfo(SQLModel):
    name: str
    title: str
    description: str
    default_command: str


class UiState(SQLModel):
    state: dict[str, Any]


ProjectRole = Literal["owner", "editor", "viewer"]


class ProjectMember(SQLModel, table=True):
    """A user's role on a project other than its creator's (who is always an owner)."""

    __tablename__ = "project_members"

    project_id: str = Field(
        sa_column=Column(String(32), ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    )
    user_id: str = Field(
        sa_column=Column(String(32), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    )
    role: str = Field(max_length=16)
    created_at: datetime = Field(default_factory=utcnow)


class MemberPublic(SQLModel):
    user: str
    role: str


class MemberUpdate(SQLModel):
    role: ProjectRole
