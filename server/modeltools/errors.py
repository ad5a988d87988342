"""The worker's one failure type: a reason a person can act on, never a traceback."""


class ToolFailed(Exception):
    """A tool could not do its job; ``str(exc)`` is shown to the user as the run's error."""
