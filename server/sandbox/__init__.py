"""One sandbox for every process started for a user (docs/security.md, "The sandbox").

Callers describe what a process may see in a ``Policy`` and get back the argv to start instead
of their own; none of them builds a ``bwrap`` line of its own.
"""

from server.sandbox.policy import Limits, Policy, exit_status
from server.sandbox.service import Sandbox, SandboxState

__all__ = ["Limits", "Policy", "Sandbox", "SandboxState", "exit_status"]
