"""Each person's keyboard shortcuts: a command's keys where they differ from its defaults."""

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, StringConstraints
from pydantic import Field as PydanticField
from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from server.core.db import utcnow

# The serialised overrides a person may keep (their body as JSON, after normalising).
MAX_BYTES = 64 * 1024
MAX_COMMANDS = 1000
MAX_KEYS_PER_COMMAND = 4

CommandId = Annotated[
    str, StringConstraints(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")
]
KeyText = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class KeybindingsBody(BaseModel):
    """``bindings``: command id → its keys, replacing the command's defaults (``[]``: no key)."""

    bindings: dict[CommandId, Annotated[list[KeyText], PydanticField(max_length=MAX_KEYS_PER_COMMAND)]] = (
        PydanticField(max_length=MAX_COMMANDS)
    )


class KeybindingsOut(BaseModel):
    bindings: dict[str, list[str]]


class Keybindings(SQLModel, table=True):
    """One person's overrides; a person without a row has every command's default keys."""

    __tablename__ = "keybindings"

    user_id: str = Field(foreign_key="users.id", ondelete="CASCADE", primary_key=True, max_length=32)
    bindings: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    updated_at: datetime = Field(default_factory=utcnow)
