"""The database: SQLModel on SQLite (WAL) by default, PostgreSQL for teams; alembic migrations."""

import logging
import secrets
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, create_engine

MIGRATIONS_DIR = Path(__file__).resolve().parents[1] / "migrations"
# How often, and how long, a write that must not be lost is tried again on a full disk.
FULL_RETRY_SECONDS = 1.0
FULL_GIVE_UP_SECONDS = 600.0

log = logging.getLogger(__name__)
T = TypeVar("T")


def new_id() -> str:
    """A short random id for rows that appear in URLs."""
    return secrets.token_hex(8)


def utcnow() -> datetime:
    return datetime.now(UTC)


def release(session: Session) -> None:
    """End the session's transaction so its pooled connection goes back to the pool, keeping
    the rows already loaded (not expired). Called between a request's database work and its slow
    work (a file save, ``git init``, waiting on a thread): the pool has 15 connections for every
    request, socket and job of the server (docs/team.md, "How far one server goes"); a query
    after this takes a connection anew."""
    keep = session.expire_on_commit
    session.expire_on_commit = False
    try:
        session.commit()
    finally:
        session.expire_on_commit = keep


def database_full(exc: DBAPIError) -> bool:
    """SQLite's SQLITE_FULL or PostgreSQL's disk_full (53100)."""
    orig = exc.orig
    return (getattr(orig, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
            or getattr(orig, "sqlstate", None) == "53100")


def until_stored(write: Callable[[], T], what: str) -> T:
    """Run ``write``, a database write that has no caller to answer (the end of a tool run or a
    job), again each second while the disk is full, so it lands once space is freed instead of
    being lost. Gives up, raising, after ``FULL_GIVE_UP_SECONDS``."""
    deadline = time.monotonic() + FULL_GIVE_UP_SECONDS
    waited = False
    while True:
        try:
            return write()
        except DBAPIError as exc:
            if not database_full(exc) or time.monotonic() > deadline:
                raise
            if not waited:
                log.warning("the disk is full: %s waits for room to be recorded", what)
                waited = True
        time.sleep(FULL_RETRY_SECONDS)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def make_engine(url: str) -> Engine:
    """Create the engine; SQLite gets WAL mode and a busy timeout on every connection."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True)


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision of every migration branch, all or nothing.

    Python's sqlite3 runs DDL outside any transaction, so a migration that failed or was killed
    half-way used to leave tables behind that the next start-up tripped over ("table users
    already exists") for good. On SQLite the whole upgrade runs in one ``BEGIN IMMEDIATE``
    transaction instead, which also makes a second process migrating the same file wait for the
    first. PostgreSQL's DDL is transactional already."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if engine.dialect.name != "sqlite":
        with engine.begin() as connection:
            cfg.attributes["connection"] = connection
            command.upgrade(cfg, "heads")
        return
    with engine.connect() as plain:
        connection = plain.execution_options(isolation_level="AUTOCOMMIT")
        connection.exec_driver_sql("BEGIN IMMEDIATE")
        try:
            cfg.attributes["connection"] = connection
            command.upgrade(cfg, "heads")
        except BaseException:
            connection.exec_driver_sql("ROLLBACK")
            raise
        if connection.connection.driver_connection.in_transaction:  # type: ignore[union-attr]
            connection.exec_driver_sql("COMMIT")
