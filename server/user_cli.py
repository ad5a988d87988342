"""``mnnwb user add|remove|passwd|list``: manage team-mode accounts from the server's shell."""

import argparse
import getpass
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from sqlmodel import Session

from server.core.config import Settings
from server.core.db import make_engine, migrate
from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Invalid
from server.projects.owners import remove_user
from server.users import service
from server.users.changes import unheard
from server.users.models import Role


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir")
    user = sub.add_parser("user", help="manage team-mode users")
    actions = user.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", parents=[common],
                             help="add a user (the first should be an --admin)")
    add.add_argument("name")
    add.add_argument("--admin", action="store_true", help="may manage every project")
    passwd = actions.add_parser("passwd", parents=[common],
                                help="set a new password (signs the user out)")
    passwd.add_argument("name")
    for cmd in (add, passwd):
        cmd.add_argument("--password-stdin", action="store_true",
                         help="read the password from the first line of stdin (for scripts)")
    remove = actions.add_parser("remove", parents=[common], help="delete a user")
    remove.add_argument("name")
    remove.add_argument("--transfer-to", help="give the user's projects to this user")
    actions.add_parser("list", parents=[common], help="list users")


def read_password(from_stdin: bool) -> str:
    """Prompt twice on a terminal; otherwise (or when asked) read one line from stdin."""
    if from_stdin or not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Again: ") != first:
        raise Invalid("the passwords differ", code=ErrorCode.MISMATCH)
    return first


@contextmanager
def database(settings: Settings) -> Iterator[Session]:
    settings.ensure_dirs()
    engine = make_engine(settings.db_url)
    try:
        migrate(engine)
        with Session(engine) as session:
            yield session
    finally:
        engine.dispose()


def run(args: argparse.Namespace, settings: Settings) -> int:
    try:
        with database(settings) as session:
            _dispatch(args, session)
    except AppError as exc:
        print(f"error: {exc.detail}", file=sys.stderr)
        return 1
    return 0


def _dispatch(args: argparse.Namespace, session: Session) -> None:
    if args.action == "list":
        for info in service.list_users(session):
            print(f"{info.name:24} {info.role}")
    elif args.action == "add":
        role: Role = "admin" if args.admin else "member"
        user = service.add_user(session, args.name, read_password(args.password_stdin), role)
        print(f"added {user.name} ({user.role})")
    elif args.action == "passwd":
        # A running server is another process: its credential check ends the sessions' sockets.
        service.set_password(session, args.name, read_password(args.password_stdin), unheard)
        print(f"password changed; {args.name} is signed out everywhere")
    elif args.action == "remove":
        remove_user(session, args.name, unheard, args.transfer_to)
        print(f"removed {args.name}")
