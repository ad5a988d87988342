"""Reading and replacing a person's keyboard shortcuts (docs/ide.md, "Keyboard shortcuts")."""

import json

from sqlmodel import Session

from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid, TooLarge
from server.keybindings.keys import BadKey, normalize
from server.keybindings.models import MAX_BYTES, Keybindings, KeybindingsBody, KeybindingsOut


def bindings_of(session: Session, user_id: str) -> dict[str, list[str]]:
    row = session.get(Keybindings, user_id)
    return dict(row.bindings) if row else {}


def get_bindings(session: Session, user_id: str) -> KeybindingsOut:
    return KeybindingsOut(bindings=bindings_of(session, user_id))


def _normalized(body: KeybindingsBody) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for command, keys in body.bindings.items():
        spelled: list[str] = []
        for key in keys:
            try:
                one = normalize(key)
            except BadKey as exc:
                raise Invalid(f"the key {key!r} of {command}: {exc}", code=ErrorCode.BAD_KEY,
                              command=command, key=key) from None
            if one not in spelled:
                spelled.append(one)
        out[command] = spelled
    return out


def set_bindings(session: Session, user_id: str, body: KeybindingsBody) -> KeybindingsOut:
    """Replaces all of the person's overrides with ``body``'s, each key in its one spelling."""
    bindings = _normalized(body)
    size = len(json.dumps(bindings, separators=(",", ":")).encode())
    if size > MAX_BYTES:
        raise TooLarge(f"the keyboard shortcuts take {size} bytes, more than {MAX_BYTES}")
    row = session.get(Keybindings, user_id) or Keybindings(user_id=user_id)
    row.bindings, row.updated_at = bindings, utcnow()
    session.add(row)
    session.commit()
    return KeybindingsOut(bindings=bindings)
