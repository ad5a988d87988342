from tests.server.team.conftest import cheap_argon2, team  # noqa: F401
