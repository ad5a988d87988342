"""The ``git`` events of the Git operations (``changed`` is ``server/files/events.py``'s: the
watcher, below this layer, tells it too)."""

from typing import ClassVar

from device_bridge.tab_events import Channel, TabEvent


class GitProgress(TabEvent):
    """A line of a long Git operation's progress (a fetch, a push), throttled."""

    CHANNEL: ClassVar[Channel] = "git"
    TYPE: ClassVar[str] = "progress"
    op: str
    text: str
