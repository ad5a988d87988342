"""The worker's one failure type: a reason a person can act on, never a traceback."""

from typing import Any


class ToolFailed(Exception):
    """A tool could not do its job; ``str(exc)`` is shown to the user as the run's error.

    ``code`` names the failure where a client acts on its kind (``input_shape_required``);
    ``where`` holds the fields that locate it (the input and the dim)."""

    def __init__(self, message: str, code: str | None = None, **where: Any) -> None:
        super().__init__(message)
        self.code, self.where = code, where
