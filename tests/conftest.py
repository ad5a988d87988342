"""The shared fixtures are a pytest plugin, tests/plugin/, registered here by theme (see
docs/testing.md). The helpers tests import from here are the plugin's, under their old names."""

import pytest

pytest.register_assert_rewrite("tests.plugin")  # before the imports below load it

from tests.plugin.resources import SHARED, seed_builtins  # noqa: E402, F401
from tests.plugin.server import (  # noqa: E402, F401
    CSRF,
    LiveServer,
    _free_port,
    free_port,
    make_client,
    migrated_data_dir,
    start_live_server,
)

pytest_plugins = [
    "tests.plugin.server",
    "tests.plugin.projects",
    "tests.plugin.databases",
    "tests.plugin.resources",
    "tests.plugin.team",
]
