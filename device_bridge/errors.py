"""Failures of tab-side bridge operations, each with a stable ``code`` for the tab."""


class BridgeError(Exception):
    code = "bridge_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DeviceOffline(BridgeError):
    code = "device_offline"


class UnknownSession(BridgeError):
    code = "unknown_session"


class BadCommand(BridgeError):
    code = "bad_command"


class DeviceTimeout(BridgeError):
    code = "device_timeout"
