"""The shared test fixtures, as a pytest plugin registered by tests/conftest.py, by theme:
``server`` (settings, clients, a live server), ``projects``, ``databases`` (SQLite and
PostgreSQL), ``resources`` (the slow session resources and the xdist groups) and ``team``
(a team-mode app with one user per role). docs/testing.md lists them."""
