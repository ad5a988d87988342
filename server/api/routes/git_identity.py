"""The caller's Git identity: the name and email their commits, stash entries and merges carry
when a repository's own config names none (docs/git.md)."""

from typing import Annotated

from fastapi import APIRouter, Depends

from server.api.deps import CurrentUser, SessionDep
from server.gitflow import identity
from server.gitflow.models import GitIdentityBody, GitIdentityOut

router = APIRouter(prefix="/api/git", tags=["git"])


def stored_author(user: CurrentUser, session: SessionDep) -> str | None:
    return identity.default_author(session, user.id)


StoredAuthor = Annotated[str | None, Depends(stored_author)]


@router.get("/identity")
def get_identity(user: CurrentUser, session: SessionDep) -> GitIdentityOut:
    return identity.get_identity(session, user.id)


@router.put("/identity")
def set_identity(body: GitIdentityBody, user: CurrentUser, session: SessionDep) -> GitIdentityOut:
    return identity.set_identity(session, user.id, body)
