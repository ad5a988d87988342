"""One person's unsaved text of one file of a project, and the file's etag it was edited from."""

from datetime import datetime

from pydantic import BaseModel
from pydantic import Field as PydanticField
from sqlalchemy import Column, Text
from sqlmodel import Field, SQLModel

from server.core.db import utcnow

# An unsaved text is kept up to this size; a project keeps this many per person.
MAX_BYTES = 4 * 1024 * 1024
MAX_FILES = 200


class BackupBody(BaseModel):
    content: str
    base_etag: str | None = PydanticField(default=None, max_length=128, description=(
        "the etag of the file the edits started from (the save that follows sends it), null "
        "for a file not on disk"))


class BackupOut(BaseModel):
    path: str
    content: str
    base_etag: str | None
    updated_at: datetime


class EditorBackup(SQLModel, table=True):
    __tablename__ = "editor_backups"

    user_id: str = Field(foreign_key="users.id", ondelete="CASCADE", primary_key=True, max_length=32)
    project_id: str = Field(foreign_key="projects.id", ondelete="CASCADE", primary_key=True,
                            max_length=32)
    path: str = Field(primary_key=True, max_length=1024)
    content: str = Field(sa_column=Column(Text, nullable=False))
    base_etag: str | None = Field(default=None, max_length=128)
    updated_at: datetime = Field(default_factory=utcnow)
