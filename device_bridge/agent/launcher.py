"""``python3 agent.pyz [doctor] …``: install what is missing, then run the agent or the doctor.

The workbench serves this agent as a zipapp (``GET /bridge/v1/agent.pyz``). Its missing packages
go into the agent home (see ``packages``); nothing here needs more than the standard library.
"""

import argparse
import sys
from pathlib import Path

from device_bridge.agent import doctor, packages


def say(text: str) -> None:
    print(f"mnnwb-agent: {text}", file=sys.stderr, flush=True)


def home_from(argv: list[str]) -> Path:
    if "--home" in argv[:-1]:
        return Path(argv[argv.index("--home") + 1])
    return packages.default_home()


def run_doctor(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 agent.pyz doctor",
                                     description="what works on this device, what to install")
    parser.add_argument("--server", help="the workbench URL, to check the connection and clock")
    parser.add_argument("--home", type=Path, default=None, help="the agent home")
    args = parser.parse_args(argv)
    return doctor.run(packages.lib_dir(args.home or packages.default_home()), args.server)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    lib = packages.lib_dir(home_from(argv))
    packages.use_lib(lib, packages.agent_pyz())
    if argv[:1] == ["doctor"]:
        return run_doctor(argv[1:])
    absent = packages.missing(packages.REQUIRED)
    if absent and not packages.install(lib, absent, packages.REQUIRED, say):
        return 2
    from device_bridge.agent.__main__ import main as agent_main

    return agent_main(argv)
