"""Failures of tab-side bridge operations, each with a stable ``code`` for the tab.

The codes are ``BridgeCode`` members; the server's ``ErrorCode`` (``server/core/error_codes.py``)
has each of them too (``tests/server/api/test_error_codes.py`` checks it), so a tab reads one
list of codes whichever side failed.
"""

from enum import StrEnum


class BridgeCode(StrEnum):
    BRIDGE_ERROR = "bridge_error"
    DEVICE_OFFLINE = "device_offline"
    UNKNOWN_SESSION = "unknown_session"
    BAD_COMMAND = "bad_command"
    DEVICE_TIMEOUT = "device_timeout"


class BridgeError(Exception):
    code = BridgeCode.BRIDGE_ERROR

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DeviceOffline(BridgeError):
    code = BridgeCode.DEVICE_OFFLINE


class UnknownSession(BridgeError):
    code = BridgeCode.UNKNOWN_SESSION


class BadCommand(BridgeError):
    code = BridgeCode.BAD_COMMAND


class DeviceTimeout(BridgeError):
    code = BridgeCode.DEVICE_TIMEOUT
