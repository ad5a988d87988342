"""The shared test fixtures, as a pytest plugin registered by tests/conftest.py, by theme:
``server`` (settings, clients, a live server), ``projects``, ``databases`` (SQLite and
PostgreSQL), ``resources`` (the slow session resources and the xdist groups), ``team`` (a
team-mode app with one user per role) and ``tools`` (running the model tools; helpers only).
docs/testing.md lists them."""
