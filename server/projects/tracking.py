"""A new project's Git repository: its first commit holds the files it was made with.

Made for a template, an empty start, an upload and a market install unless the request says
``git: false`` (docs/git.md, "New projects"). The author is the creator's stored identity, else
the server's git config, else the account's name at this host, as git itself falls back to:
making a project never stops for want of an identity.
"""

import socket
from pathlib import Path

from sqlmodel import Session

from server.core.db import release
from server.core.errors import Invalid
from server.gitflow.identity import default_author
from server.gitflow.models import CommitInfo
from server.gitflow.start import start_tracking
from server.users.models import User


def account_author(user: User) -> str:
    """``name <name@host>``: git's own identity when none is configured."""
    name = " ".join(user.name.replace("<", " ").replace(">", " ").split()) or "user"
    return f"{name} <{name.replace(' ', '.')}@{socket.gethostname()}>"


def track_new(session: Session, user: User, folder: Path) -> CommitInfo | None:
    """A repository in the new project's ``folder`` with one commit of its files; a default
    ``.gitignore`` (job outputs, environments, caches) is written first when it ships none."""
    stored = default_author(session, user.id)
    release(session)  # git init and the first commit take a while
    try:
        return start_tracking(folder, fallback_author=stored)
    except Invalid as exc:
        if exc.code != "no_identity":
            raise
    return start_tracking(folder, author=account_author(user))
