"""Users: one local owner in local mode; team mode adds more with passwords and roles."""

from datetime import datetime

from sqlmodel import Field, SQLModel

from server.core.db import new_id, utcnow

LOCAL_USER_NAME = "local"


class User(SQLModel, table=True):
    __tablename__ = "users"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    name: str = Field(index=True, unique=True, max_length=64)
    password_hash: str | None = Field(default=None, max_length=256)
    role: str = Field(default="admin", max_length=16)
    created_at: datetime = Field(default_factory=utcnow)


class UserPublic(SQLModel):
    id: str
    name: str
    mode: str
