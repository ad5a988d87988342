"""Password hashing with argon2id (argon2-cffi's defaults, RFC 9106 low-memory profile)."""

from functools import cached_property

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid

MIN_LENGTH = 10


class Hasher:
    """argon2id with a swappable cost; each hash records its own parameters, so old hashes verify."""

    def __init__(self, hasher: PasswordHasher) -> None:
        self.hasher = hasher

    @cached_property
    def dummy(self) -> str:
        """Verified against for unknown users, so a wrong name costs as much as a wrong password.
        Made at first use: a hash at import would cost every start (and every ``mnnwb``
        command) a full argon2 run, a local-mode server included."""
        return self.hasher.hash("no such user: constant-time filler")


# Module state on purpose: one cost for the process (a test suite may set a cheaper one).
current = Hasher(PasswordHasher())


def check_strength(password: str) -> str:
    if len(password) < MIN_LENGTH:
        raise Invalid(f"a password needs at least {MIN_LENGTH} characters", code=ErrorCode.WEAK_PASSWORD)
    return password


def hash_password(password: str) -> str:
    return current.hasher.hash(check_strength(password))


def verify_password(stored: str | None, password: str) -> bool:
    try:
        return current.hasher.verify(stored or current.dummy, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False
