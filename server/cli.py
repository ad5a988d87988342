"""``mnnwb``: serve the workbench, print its URL, check the installation, manage users, check a
project's performance budgets."""

import argparse
import asyncio
import gc
import ipaddress
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from server import user_cli
from server.api.services import services_of
from server.core.config import LOOPBACK_HOSTS, Settings
from server.core.security import load_or_create_token


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _settings(args: argparse.Namespace) -> Settings:
    names = ("host", "port", "certfile", "keyfile")
    overrides = {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}
    if getattr(args, "team", False):
        overrides["mode"] = "team"
    if args.data_dir:
        overrides["data_dir"] = Path(args.data_dir).expanduser()
    return Settings(**overrides)


def settings_error(exc: ValidationError) -> str:
    """Which ``MNNWB_*`` setting is wrong and why, one line each, no traceback."""
    lines = []
    for error in exc.errors():
        name, *rest = [str(part) for part in error["loc"]] or [""]
        where = f"MNNWB_{name.upper()}" if name else "settings"
        where += "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in rest)
        lines.append(f"{where}: {error['msg']}")
    return "\n".join(lines)


def url_for(settings: Settings, token: str, port: int | None = None) -> str:
    host = settings.host if _is_loopback(settings.host) else "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    scheme = "https" if settings.tls else "http"
    if settings.team:
        return f"{scheme}://{host}:{port or settings.port}/login"
    return f"{scheme}://{host}:{port or settings.port}/?token={token}"


def serve_problem(settings: Settings) -> str | None:
    """Why the server must not start with these settings, if it must not (docs/security.md)."""
    if (settings.certfile is None) != (settings.keyfile is None):
        return "TLS needs both --certfile and --keyfile"
    if not settings.team:
        if _is_loopback(settings.host):
            return None
        return (f"refusing to listen on {settings.host}: serving beyond this machine needs team "
                "mode (users and passwords). Add an admin with `mnnwb user add NAME --admin`, then "
                "start with --team (or MNNWB_MODE=team). Use the default 127.0.0.1 otherwise.")
    from server.users.service import has_admin

    with user_cli.database(settings) as session:
        if not has_admin(session):
            return "team mode needs an administrator first: mnnwb user add NAME --admin"
    return None


def serve(settings: Settings) -> int:
    import uvicorn

    from server.api.ws_limits import uvicorn_options
    from server.app import create_app

    problem = serve_problem(settings)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    settings.secure_cookies = settings.secure_cookies or settings.tls
    app = create_app(settings)
    # Forwarded headers are handled by the security middleware, from trusted proxies only.
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level="info",
                            proxy_headers=False, ssl_certfile=settings.certfile,
                            ssl_keyfile=settings.keyfile, **uvicorn_options())
    server = uvicorn.Server(config)

    async def announce() -> None:
        while not server.started:
            await asyncio.sleep(0.05)
        # What start-up made (modules, the app) lives as long as the process: keep it out of
        # the collector's full passes, which otherwise walk it all and pause requests.
        gc.collect()
        gc.freeze()
        port = server.servers[0].sockets[0].getsockname()[1] if server.servers else settings.port
        url = url_for(settings, services_of(app).token, port)
        print(f"\n  MNN Workbench is running. Open:\n\n    {url}\n", flush=True)

    async def main() -> None:
        waiter = asyncio.create_task(announce())
        await server.serve()
        waiter.cancel()

    asyncio.run(main())
    return 0


def doctor(settings: Settings) -> int:
    """Report what the workbench needs and whether it is there."""
    checks: list[tuple[str, str]] = []
    for module in ("MNN", "onnx", "onnxruntime", "dulwich", "debugpy"):
        try:
            imported = __import__(module)
            checks.append((module, str(getattr(imported, "__version__", "ok"))))
        except Exception as exc:  # noqa: BLE001 - any import failure is a finding
            checks.append((module, f"MISSING ({exc.__class__.__name__})"))
    checks.append(("data dir", str(settings.data_dir)))
    checks.append(("web UI", "built" if (settings.webui_dist / ".vite").exists() else "NOT BUILT"))
    for name, value in checks:
        print(f"{name:12} {value}")
    return 0 if all("MISSING" not in v and "NOT" not in v for _, v in checks) else 1


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["device"]:
        # The device agent has its own options and must not need the server's packages.
        from device_bridge.agent.__main__ import main as agent_main

        return agent_main(words[1:])
    if words[:1] == ["check"]:
        # Its own options, and no server settings: it runs in CI.
        from server.checks.cli import main as check_main

        return check_main(words[1:])
    if words[:1] == ["pipeline"]:
        # Runs here, without a server, unless one is named (docs/pipelines.md).
        if any(w.startswith(("--server", "--device")) for w in words):
            from server.modeltools.pipeline_remote import main as remote_main

            return remote_main(words[1:])
        from device_bridge.runtime.pipeline_cli import main as pipeline_main

        return pipeline_main(words[1:])
    if words[:1] == ["playground"]:
        # Runs here, without a server (docs/playground.md).
        from device_bridge.playground.cli import main as playground_main

        return playground_main(words[1:])
    parser = argparse.ArgumentParser(prog="mnnwb", description="MNN Workbench Web")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("device", help="run the device agent (same options as python -m device_bridge.agent)")
    sub.add_parser("check", help="check the project's performance budgets (mnnwb check --help)")
    sub.add_parser("pipeline", help="run a pipeline on images (mnnwb pipeline run --help)")
    sub.add_parser("playground", help="run a playground project headless (mnnwb playground run --help)")
    for name, text in (("serve", "start the server"), ("url", "print the URL to open"),
                       ("doctor", "check the installation")):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("--host")
        cmd.add_argument("--port", type=int)
        cmd.add_argument("--data-dir")
        cmd.add_argument("--team", action="store_true", help="users sign in with passwords")
    serve_cmd = sub.choices["serve"]
    serve_cmd.add_argument("--certfile", help="serve HTTPS with this certificate (PEM)")
    serve_cmd.add_argument("--keyfile", help="the certificate's private key (PEM)")
    user_cli.add_parser(sub)
    args = parser.parse_args(words)
    try:
        settings = _settings(args)
    except ValidationError as exc:
        print(f"invalid settings:\n{settings_error(exc)}", file=sys.stderr)
        return 2
    if args.command == "serve":
        return serve(settings)
    if args.command == "user":
        return user_cli.run(args, settings)
    if args.command == "url":
        settings.ensure_dirs()
        print(url_for(settings, load_or_create_token(settings.token_file)))
        return 0
    return doctor(settings)


if __name__ == "__main__":
    sys.exit(main())
