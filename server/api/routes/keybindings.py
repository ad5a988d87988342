"""Each person's keyboard shortcuts, ``/api/keybindings`` (docs/ide.md, "Keyboard shortcuts")."""

from fastapi import APIRouter

from server.api.deps import CurrentUser, SessionDep
from server.api.openapi import errors
from server.keybindings import service
from server.keybindings.models import KeybindingsBody, KeybindingsOut

router = APIRouter(prefix="/api", tags=["keybindings"])


@router.get("/keybindings")
def get_keybindings(user: CurrentUser, session: SessionDep) -> KeybindingsOut:
    """The caller's overrides: command id → keys (a command left out has its default keys)."""
    return service.get_bindings(session, user.id)


@router.put("/keybindings", responses=errors(413))
def put_keybindings(body: KeybindingsBody, user: CurrentUser, session: SessionDep) -> KeybindingsOut:
    """Replaces the caller's overrides; answers them as kept (each key in its one spelling)."""
    return service.set_bindings(session, user.id, body)
