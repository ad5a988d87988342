"""The ``llm`` events of a streamed chat answer: its pieces, then the whole answer."""

from typing import ClassVar

from device_bridge.tab_events import Channel, TabEvent
from server.llm.schemas import ChatAnswer


class ChatToken(TabEvent):
    """A piece of a streamed answer of the chat ``chat_id``."""

    CHANNEL: ClassVar[Channel] = "llm"
    TYPE: ClassVar[str] = "token"
    chat_id: str
    text: str


class ChatDone(ChatAnswer, TabEvent):
    """The answer (``ChatAnswer``'s fields) of the chat ``chat_id``."""

    CHANNEL: ClassVar[Channel] = "llm"
    TYPE: ClassVar[str] = "done"
    chat_id: str
