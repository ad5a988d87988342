"""The ``projects`` events of a clone under way; they go to the cloning person's own key, not to
a project (the project is not ready yet)."""

from typing import ClassVar

from pydantic import ConfigDict

from device_bridge.tab_events import Channel, TabEvent


class CloneProgress(TabEvent):
    """A step of the clone: a phase's first and last always, others five a second."""

    CHANNEL: ClassVar[Channel] = "projects"
    TYPE: ClassVar[str] = "clone_progress"
    project: str
    phase: str
    done: int
    total: int
    bytes_per_second: float | None
    text: str


class CloneDone(TabEvent):
    """The cloned project is ready."""

    CHANNEL: ClassVar[Channel] = "projects"
    TYPE: ClassVar[str] = "clone_done"
    project: str


class CloneCancelled(TabEvent):
    """The clone was stopped; its folder and row are gone."""

    CHANNEL: ClassVar[Channel] = "projects"
    TYPE: ClassVar[str] = "clone_cancelled"
    project: str


class CloneFailed(TabEvent):
    """The error's body (``detail``, ``code`` and any fields of that error) for the project."""

    model_config = ConfigDict(extra="allow")
    CHANNEL: ClassVar[Channel] = "projects"
    TYPE: ClassVar[str] = "clone_failed"
    project: str
    detail: str
    code: str
