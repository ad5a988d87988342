"""The terminal websocket's messages (JSON text frames), both ways."""

from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

MAX_INPUT = 64 * 1024


class Input(BaseModel):
    type: Literal["input"]
    data: str = Field(max_length=MAX_INPUT)


class Resize(BaseModel):
    type: Literal["resize"]
    cols: int = Field(ge=1, le=1000)
    rows: int = Field(ge=1, le=1000)


class Close(BaseModel):
    """End the terminal (closing its tab in the UI); a dropped socket only detaches."""

    type: Literal["close"]


ClientMessage = Annotated[Input | Resize | Close, Field(discriminator="type")]
client_message: TypeAdapter[Input | Resize | Close] = TypeAdapter(ClientMessage)


class Hello(BaseModel):
    """First message: the terminal's id (to reattach with ``?id=``) and whether it is new."""

    type: Literal["hello"] = "hello"
    id: str
    created: bool


class Output(BaseModel):
    type: Literal["output"] = "output"
    data: str


class Exited(BaseModel):
    type: Literal["exit"] = "exit"
    code: int | None
