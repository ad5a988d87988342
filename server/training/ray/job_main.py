"""Runs on the Ray cluster around the user's command (copied into the job's working_dir).

It gives the command a local ``$MNNWB_OUTPUT_DIR``, waits for it, uploads that folder to the
storage named in ``$MNNWB_RAY_STORAGE`` (a shared folder or an S3 prefix) with a ``manifest.json``
of every file's size and sha256, and prints ``MNNWB_ARTIFACTS <sha256 of the manifest>`` so the
workbench can check the manifest it downloads against what the job wrote. Standard library
only, plus boto3 for S3 (the ``ray`` extra's client, present on the cluster's Python).
"""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"
CHUNK = 1 << 20


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def manifest_of(folder: Path) -> bytes:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    entries = [{"path": p.relative_to(folder).as_posix(), "size": p.stat().st_size,
                "sha256": sha256_of(p)} for p in files]
    return json.dumps({"files": entries}, indent=1).encode()


def upload_shared(folder: Path, manifest: bytes, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(folder, target, dirs_exist_ok=True)
    (target / MANIFEST).write_bytes(manifest)


def upload_s3(folder: Path, manifest: bytes, storage: dict[str, Any]) -> None:
    import boto3  # only S3 storage needs it

    s3 = boto3.client("s3", endpoint_url=storage.get("endpoint") or None,
                      region_name=storage.get("region") or None)
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        key = storage["prefix"] + path.relative_to(folder).as_posix()
        s3.upload_file(str(path), storage["bucket"], key)
    s3.put_object(Bucket=storage["bucket"], Key=storage["prefix"] + MANIFEST, Body=manifest)


def upload(folder: Path) -> None:
    storage = json.loads(os.environ["MNNWB_RAY_STORAGE"])
    manifest = manifest_of(folder)
    if storage["kind"] == "s3":
        upload_s3(folder, manifest, storage)
    else:
        upload_shared(folder, manifest, Path(storage["path"]))
    print("MNNWB_ARTIFACTS " + hashlib.sha256(manifest).hexdigest(), flush=True)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    out = Path(tempfile.mkdtemp(prefix="mnnwb-out-"))
    env = {**os.environ, "MNNWB_OUTPUT_DIR": str(out), "PYTHONUNBUFFERED": "1"}
    child = subprocess.Popen(argv, env=env)
    stopped = []

    def forward(signum: int, _frame: Any) -> None:
        stopped.append(signum)
        child.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    code = child.wait()
    if not stopped:
        try:
            upload(out)
        except Exception as exc:  # the run's own result stands; say why its outputs are missing
            print(f"MNNWB: uploading the outputs failed: {exc!r}", file=sys.stderr, flush=True)
            code = code or 1
    shutil.rmtree(out, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
