"""Devices (paired agents) and pairings (one-time codes); tokens are stored as sha256 only."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel
from pydantic import Field as PydanticField
from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from server.core.db import new_id, utcnow


class Device(SQLModel, table=True):
    __tablename__ = "devices"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    name: str = Field(max_length=128)
    owner_id: str = Field(foreign_key="users.id", index=True, max_length=32)
    agent_id: str = Field(max_length=64)
    token_hash: str = Field(unique=True, max_length=64)
    info: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    last_seen: datetime | None = None


class Pairing(SQLModel, table=True):
    __tablename__ = "device_pairings"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    name: str = Field(max_length=128)
    owner_id: str = Field(foreign_key="users.id", max_length=32)
    code_hash: str = Field(unique=True, max_length=64)
    expires_at: datetime


class DevicePublic(BaseModel):
    id: str
    name: str
    online: bool
    info: dict[str, Any]
    last_seen: datetime | None
    owner: str  # the name of the user who paired it
    mine: bool  # the caller paired it
    manage: bool  # the caller may rename, remove and share it: its owner or an admin


class FactsAsked(BaseModel):
    """The agent was asked for fresh facts: they replace ``info`` when it answers."""

    device_id: str
    status: Literal["asked"] = "asked"


class DeviceUpdate(BaseModel):
    name: str = PydanticField(min_length=1, max_length=128)


class PairingCreate(BaseModel):
    name: str = PydanticField(default="device", min_length=1, max_length=128)


class PairingOption(BaseModel):
    url: str  # a server address the device may reach the workbench under
    command: str  # the one line to run on the device, for that address
    qr: str  # the command as a QR code: an SVG data URI


class PairingPublic(BaseModel):
    token: str
    command: str  # the first option's: the address the browser uses
    expires_at: datetime
    agent_sha256: str  # of the agent.pyz the command downloads
    options: list[PairingOption]


class DeviceSessionPublic(BaseModel):
    sid: str
    project: str
    device_id: str
    state: Literal["open", "lost", "closed"]
