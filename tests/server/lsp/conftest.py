"""Every test here hashes passwords at a test-sized cost (``team`` is a fixture of tests/plugin/team.py)."""

from tests.server.team.conftest import cheap_argon2  # noqa: F401
