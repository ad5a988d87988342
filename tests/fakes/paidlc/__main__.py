"""Run the emulator by hand: ``python -m tests.fakes.paidlc --port 8790``."""

import argparse
import signal
import threading

from .server import Emulator


def main() -> None:
    parser = argparse.ArgumentParser(description="Local PAI-DLC / AIWorkspace / OSS emulator")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument(
        "--bucket",
        action="append",
        default=None,
        help="bucket to create (repeatable; default mnnwb-artifacts)",
    )
    parser.add_argument("--access-key-id", default="LTAIemulator")
    parser.add_argument("--access-key-secret", default="emulator-secret")
    parser.add_argument("--step-delay", type=float, default=1.0, help="seconds between job status changes")
    args = parser.parse_args()
    emulator = Emulator(
        host=args.host,
        port=args.port,
        buckets=tuple(args.bucket or ["mnnwb-artifacts"]),
        credentials={args.access_key_id: args.access_key_secret},
        step_delay=args.step_delay,
    )
    done = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: done.set())
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with emulator:
        print(f"PAI-DLC/AIWorkspace endpoint: {emulator.endpoint} (protocol http)", flush=True)
        print(f"OSS endpoint: {emulator.oss_endpoint} (path style)", flush=True)
        print(f"access key id: {args.access_key_id}", flush=True)
        done.wait()


if __name__ == "__main__":
    main()
