"""The key syntax the web UI's commands are bound with (webui/src/kernel/keys.ts).

A key is one or two presses (a chord, ``Ctrl+K Ctrl+S``) separated by a space; a press is
modifiers then one key name joined by ``+``. ``Ctrl`` stands for Ctrl, and for Command on macOS.
Written in any case and modifier order, a key is kept in one spelling: ``Ctrl+Shift+Alt+<key>``.
"""

import re

MODIFIERS = ("Ctrl", "Shift", "Alt")
_MODIFIER_NAMES = {"ctrl": "Ctrl", "control": "Ctrl", "cmd": "Ctrl", "meta": "Ctrl",
                   "shift": "Shift", "alt": "Alt", "option": "Alt"}
_NAMED = ("Tab", "Enter", "Escape", "Space", "Backspace", "Delete", "Insert", "Home", "End",
          "PageUp", "PageDown", "Up", "Down", "Left", "Right")
NAMES: dict[str, str] = {
    **{name.lower(): name for name in _NAMED},
    **{chr(c).lower(): chr(c) for c in range(ord("A"), ord("Z") + 1)},
    **{str(d): str(d) for d in range(10)},
    **{f"f{n}": f"F{n}" for n in range(1, 25)},
    **{c: c for c in "`-=[]\\;',./"},
}
_PRESS = re.compile(r"^[^\s]+$")


class BadKey(ValueError):
    """A key the syntax does not allow; the message says why."""


def _press(text: str) -> str:
    if not _PRESS.match(text):
        raise BadKey(f"{text!r} is not a key")
    # The last "+" may be part of no key name (there is none with "+"), so a plain split holds.
    *mods, name = text.split("+")
    key = NAMES.get(name.lower())
    if key is None:
        raise BadKey(f"{name!r} is not a key name" if name else f"{text!r} names no key")
    seen: set[str] = set()
    for mod in mods:
        canonical = _MODIFIER_NAMES.get(mod.lower())
        if canonical is None:
            raise BadKey(f"{mod!r} is not a modifier (Ctrl, Shift, Alt)")
        if canonical in seen:
            raise BadKey(f"{canonical} is named twice in {text!r}")
        seen.add(canonical)
    return "+".join([*(m for m in MODIFIERS if m in seen), key])


def normalize(key: str) -> str:
    """The key in its one spelling, e.g. ``shift+ctrl+p`` → ``Ctrl+Shift+P``; BadKey if not one."""
    presses = key.split(" ")
    if not 1 <= len(presses) <= 2:
        raise BadKey("a key is one press or a chord of two, separated by one space")
    return " ".join(_press(p) for p in presses)
