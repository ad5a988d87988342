"""What every message of the device bridge protocol is built from: ids, text and the strict base
model (``device_bridge/protocol.py`` and ``device_bridge/protocol_llm.py`` hold the messages)."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from device_bridge.wire import MAX_MESSAGE_BYTES

Sid = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
Text = Annotated[str, Field(max_length=MAX_MESSAGE_BYTES)]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")
