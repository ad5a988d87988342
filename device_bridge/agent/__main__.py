"""``python -m device_bridge.agent --server URL --token-file FILE``: run the device agent."""

import argparse
import asyncio
import getpass
import os
import signal
import sys
from pathlib import Path

from device_bridge.agent import doctor, packages
from device_bridge.agent.link import Agent, say
from device_bridge.agent.state import AgentState

CODE_VARIABLE = "MNNWB_PAIRING_CODE"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m device_bridge.agent",
                                     description="MNN Workbench device agent")
    parser.add_argument("--server", required=True, help="the workbench URL, e.g. http://pc:8765")
    parser.add_argument("--token-file", type=Path,
                        help="file holding the pairing code (read once; the device token that "
                        "replaces it is kept in the agent home)")
    parser.add_argument("--name", help="device name shown in the workbench (default: hostname)")
    parser.add_argument("--home", type=Path, default=None,
                        help="agent state and work folder (default: $MNNWB_AGENT_HOME or "
                        "~/.mnnwb-agent)")
    return parser.parse_args(argv)


def read_code(args: argparse.Namespace, state: AgentState) -> str | None:
    """The pairing code: from --token-file, from the one-line pairing command's environment
    variable (taken out, so the programs the agent starts never see it), or typed."""
    from_env = os.environ.pop(CODE_VARIABLE, "").strip()
    if from_env and args.token_file is None:
        return from_env
    if args.token_file is not None:
        try:
            return args.token_file.read_text().strip() or None
        except OSError as exc:
            say(f"cannot read the token file {args.token_file}: {exc.strerror}")
            raise SystemExit(2) from exc
    if state.token_for(None) is None and sys.stdin.isatty():
        return getpass.getpass("pairing code: ").strip() or None
    return None


async def serve(agent: Agent) -> int:
    """Run until stopped; SIGTERM or Ctrl-C first ends the programs the agent started."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    for signum in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(signum, task.cancel)
        except (NotImplementedError, RuntimeError):
            continue  # Windows: Ctrl-C still raises KeyboardInterrupt
    try:
        return await agent.run_forever()
    except asyncio.CancelledError:
        say("stopping: ending the programs of every session")
        await agent.shutdown()
        return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    state = AgentState(args.home or packages.default_home())
    checks, backends = doctor.local_report(packages.lib_dir(state.home))
    agent = Agent(args.server, state, read_code(args, state), args.name, [c.view() for c in checks],
                  backends)
    say(f"device {state.device_id}; work folder {state.sessions_dir}")
    try:
        return asyncio.run(serve(agent))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
