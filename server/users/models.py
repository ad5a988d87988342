"""Users: one local owner in local mode; team mode adds more with passwords and roles.

Team mode also keeps login sessions, personal API tokens and an audit log. Secrets (session ids,
tokens) are random and high-entropy, so only their sha256 is stored.
"""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel
from pydantic import Field as PydanticField
from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from server.core.db import new_id, utcnow

LOCAL_USER_NAME = "local"
Role = Literal["admin", "member"]


class User(SQLModel, table=True):
    __tablename__ = "users"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    name: str = Field(index=True, unique=True, max_length=64)
    password_hash: str | None = Field(default=None, max_length=256)
    role: str = Field(default="admin", max_length=16)
    created_at: datetime = Field(default_factory=utcnow)


class UserSession(SQLModel, table=True):
    __tablename__ = "user_sessions"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=32)
    secret_hash: str = Field(unique=True, max_length=64)
    address: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime


class ApiToken(SQLModel, table=True):
    __tablename__ = "api_tokens"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=32)
    name: str = Field(max_length=64)
    secret_hash: str = Field(unique=True, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime | None = None


class AuditEvent(SQLModel, table=True):
    __tablename__ = "audit_events"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    at: datetime = Field(default_factory=utcnow, index=True)
    action: str = Field(max_length=64)
    actor: str | None = Field(default=None, max_length=64)
    address: str | None = Field(default=None, max_length=64)
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class UserPublic(SQLModel):
    id: str
    name: str
    mode: str
    role: str = "admin"


class UserInfo(BaseModel):
    name: str
    role: str
    created_at: datetime


class LoginBody(BaseModel):
    name: str = PydanticField(min_length=1, max_length=64)
    password: str = PydanticField(min_length=1, max_length=1024)


class TokenCreate(BaseModel):
    name: str = PydanticField(min_length=1, max_length=64)


class TokenPublic(BaseModel):
    id: str
    name: str
    created_at: datetime
    last_used_at: datetime | None


class TokenCreated(TokenPublic):
    token: str


class AuditPublic(BaseModel):
    at: datetime
    action: str
    actor: str | None
    address: str | None
    data: dict[str, Any]
