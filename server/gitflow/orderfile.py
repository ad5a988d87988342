"""The log's order kept on disk, so the first history page after a restart reads only its page.

``history.py`` keeps the ``git log --topo-order`` order of a few start commits in memory; the
most recent single-start one is also written to ``<git dir>/mnnwb/log-order``: the start commit,
a key of the grafts and shallow boundaries the order was made with, and every commit id in order,
followed by a SHA-1 of all that. Commits never change, so an order made from a start commit stays
right for that start; what could change while the server was down is which commit the branch
names, and that is read anew every time (the order is taken for the start it was made from, or
as the old HEAD's order that the commits made on top of it since are put in front of). A file
that is short, of another format, or whose checksum does not match is ignored, and one that
cannot be written is not kept: the walk then runs as it would without it.
"""

import hashlib
import logging
import os
from binascii import hexlify, unhexlify
from pathlib import Path

from dulwich.objects import ObjectID

from server.core.fsutil import write_bytes_atomic

log = logging.getLogger(__name__)

_MAGIC = b"MNNWB-LOG-ORDER 1\n"
_ID = 20


def _path(controldir: str) -> str:
    return os.path.join(controldir, "mnnwb", "log-order")


def _digest(data: bytes) -> bytes:
    return hashlib.sha1(data, usedforsecurity=False).digest()


def load(controldir: str, grafts_key: bytes) -> tuple[ObjectID, tuple[ObjectID, ...]] | None:
    """The kept ``(start, order)`` made with the same grafts, or None."""
    try:
        with open(_path(controldir), "rb") as f:
            data = f.read()
    except OSError:
        return None
    body, checksum = data[:-_ID], data[-_ID:]
    head = len(_MAGIC) + 2 * _ID
    if (not body.startswith(_MAGIC) or len(body) < head + _ID or (len(body) - head) % _ID
            or _digest(body) != checksum):
        return None
    if body[len(_MAGIC) + _ID: head] != _digest(grafts_key):
        return None
    start = ObjectID(hexlify(body[len(_MAGIC): len(_MAGIC) + _ID]))
    ids = hexlify(body[head:])
    order = tuple(ObjectID(ids[i: i + 2 * _ID]) for i in range(0, len(ids), 2 * _ID))
    if order[0] != start:
        return None
    return start, order


def save(controldir: str, grafts_key: bytes, start: ObjectID, order: tuple[ObjectID, ...]) -> None:
    """Keep ``order`` (from ``start``) for the next process; written whole or not at all."""
    if not order or order[0] != start:
        return
    body = _MAGIC + unhexlify(start) + _digest(grafts_key) + unhexlify(b"".join(order))
    try:
        os.makedirs(os.path.dirname(_path(controldir)), exist_ok=True)
        write_bytes_atomic(Path(_path(controldir)), body + _digest(body), mode=0o600)
    except OSError:
        log.debug("the log order of %s could not be kept", controldir, exc_info=True)
