"""The ``files`` and ``git`` events: what changed in a project's folder and its repository.

A change made through the API carries the ``client`` (tab) that made it, so that tab recognises
its own; one seen by the watcher or made by the server has none (docs/protocol.md).
"""

from typing import ClassVar, Literal, NotRequired

from typing_extensions import TypedDict

from device_bridge.tab_events import Channel, TabEvent


class ChangedPath(TypedDict):
    kind: Literal["added", "modified", "deleted"]
    path: str
    etag: NotRequired[str]


class FilesChanged(TabEvent):
    """Files of the project were added, modified or deleted (by ``client``, when a tab did)."""

    CHANNEL: ClassVar[Channel] = "files"
    TYPE: ClassVar[str] = "changed"
    changes: list[ChangedPath]
    client: str | None = None


class GitChanged(TabEvent):
    """``op`` names the Git operation, or ``outside`` for a change the watcher saw in ``.git``
    (then ``paths`` lists up to 50 of the changed files under ``.git``)."""

    CHANNEL: ClassVar[Channel] = "git"
    TYPE: ClassVar[str] = "changed"
    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset({"paths"})
    op: str
    client: str | None = None
    paths: list[str] | None = None
