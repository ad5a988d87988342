"""A thin inotify(7) wrapper (Linux, through the C library): the file monitor of Git status
(``server/gitflow/fsmonitor.py``) and the job watchers' wake-ups (``server/training/wakeups.py``)
each keep one instance."""

import ctypes
import ctypes.util
import os
import struct
from collections.abc import Iterator
from functools import cache

# inotify(7)
IN_MODIFY, IN_ATTRIB, IN_MOVED_FROM, IN_MOVED_TO = 0x2, 0x4, 0x40, 0x80
IN_CREATE, IN_DELETE, IN_DELETE_SELF, IN_MOVE_SELF = 0x100, 0x200, 0x400, 0x800
IN_UNMOUNT, IN_Q_OVERFLOW, IN_IGNORED = 0x2000, 0x4000, 0x8000
IN_ONLYDIR, IN_DONT_FOLLOW, IN_EXCL_UNLINK = 0x01000000, 0x02000000, 0x04000000
FOLDER_GONE = IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED
NAMES_CHANGED = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
_EVENT = struct.Struct("iIII")


@cache
def _libc() -> ctypes.CDLL:
    """The C library, looked up once (``find_library`` runs ``ldconfig``: ~10 ms)."""
    return ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


class Inotify:
    """One non-blocking inotify instance (Linux); ``OSError`` where there is none."""

    def __init__(self) -> None:
        try:
            libc = _libc()
            init, self._add, self._rm = libc.inotify_init1, libc.inotify_add_watch, libc.inotify_rm_watch
        except (OSError, AttributeError) as exc:
            raise OSError("inotify is not available here") from exc
        self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self._rm.argtypes = [ctypes.c_int, ctypes.c_int]
        self.fd = init(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")

    def add(self, path: bytes, mask: int) -> int | None:
        """The watch descriptor for ``path`` and the events of ``mask``, or None when it cannot
        be watched (gone, not what the mask's flags ask for, or the user's watch limit is
        reached). A second ``add`` of the same file gives the same descriptor."""
        wd = self._add(self.fd, path, mask)
        return wd if wd >= 0 else None

    def remove(self, wd: int) -> None:
        self._rm(self.fd, wd)

    def events(self) -> Iterator[tuple[int, int, bytes]]:
        """``(wd, mask, name)`` of every queued event, without waiting."""
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                start = offset + _EVENT.size
                yield wd, mask, data[start : start + length].rstrip(b"\0")
                offset = start + length

    def close(self) -> None:
        os.close(self.fd)
