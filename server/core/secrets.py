"""Encryption at rest for stored secrets (Git credentials, cloud keys): Fernet with a key kept
in ``<data_dir>/secrets.key``.

The key file is created on first use, readable by the server's account only (0600). Losing it
makes the stored secrets unreadable, which is reported as such: they must then be entered again.
"""

import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict

KEY_FILE = "secrets.key"


def load_or_create_key(path: Path) -> bytes:
    """The key in ``path``; a new one is written (0600, never replaced) when there is none."""
    try:
        return path.read_bytes().strip()
    except FileNotFoundError:
        pass
    key = Fernet.generate_key()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return path.read_bytes().strip()
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key


class SecretBox:
    """Seals and opens small secrets with the data directory's key (created lazily)."""

    def __init__(self, key_file: Path) -> None:
        self._key_file = key_file
        self._fernet: Fernet | None = None

    def _cipher(self) -> Fernet:
        if self._fernet is None:
            self._fernet = Fernet(load_or_create_key(self._key_file))
        return self._fernet

    def seal(self, plain: str) -> str:
        return self._cipher().encrypt(plain.encode()).decode("ascii")

    def open(self, sealed: str) -> str:
        try:
            return self._cipher().decrypt(sealed.encode("ascii")).decode()
        except InvalidToken:
            raise Conflict(
                f"the stored secret cannot be decrypted ({KEY_FILE} was replaced?); "
                "enter the credentials again",
                code=ErrorCode.SECRET_UNREADABLE,
            ) from None
