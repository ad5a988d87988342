"""Every test here hashes passwords at a test-sized cost. The team fixtures and helpers live in
tests/plugin/team.py; their names are imported here too, for the modules importing them from here."""

import pytest

from tests.plugin.server import CSRF  # noqa: F401
from tests.plugin.team import (  # noqa: F401
    BASE_URL,
    PASSWORD,
    ROLES,
    LiveTeam,
    Team,
    start_live_team,
    start_team,
    team_settings,
)


@pytest.fixture(autouse=True)
def cheap_argon2(cheap_hashes: None) -> None:
    """Real argon2id at a test-sized cost for every test of this folder (and of each module that
    imports this fixture)."""
