"""Access taken away, as the services that take it report it: whose, where, and why.

Removing a member, lowering a role, un-sharing a device, signing out, revoking a token, changing
a password and removing an account each call the ``Notify`` their caller hands them, once the
change is committed. The server passes ``Connections.changed`` (``server/users/connections.py``),
which closes what that person may no longer hold; the CLI, another process, passes ``unheard``
and the server's periodic credential check notices instead.
"""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class AccessChange:
    """``user_id`` may now hold less: in ``project_id`` (every project when ``None``), or on the
    device ``device_id``. ``reason`` is what their closed sockets are told."""

    user_id: str
    reason: str
    project_id: str | None = None
    device_id: str | None = None


Notify = Callable[[AccessChange], None]


def unheard(change: AccessChange) -> None:
    """For changes made outside the server process: nothing to tell in this one."""
