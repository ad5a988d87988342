"""A restarted server resumes watching its cloud jobs from the saved log cursors."""

import json
from pathlib import Path

from server.core.config import Settings
from tests.conftest import make_client
from tests.fakes.paidlc import Emulator

from .conftest import make_git_project, push_body, read_log, settings_body, submit, wait_for, wait_job

SCRIPT = """\
import json, os, time
for i in range(50):
    print(f"before {i}")
print("MNNWB_METRIC " + json.dumps({"step": 1}), flush=True)
while not os.path.exists(os.environ["GO_FILE"]):
    time.sleep(0.02)
for i in range(50):
    print(f"after {i}")
print("MNNWB_METRIC " + json.dumps({"step": 2}), flush=True)
"""


def test_a_new_server_resumes_watching_without_losing_or_repeating_lines(
    settings: Settings, emulator: Emulator, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    with make_client(settings) as client:
        assert client.put("/api/settings/pai-dlc", json=settings_body(emulator)).status_code == 200
        project = make_git_project(client, tmp_path)
        Path(project["path"], "train.py").write_text(SCRIPT)
        job = submit(
            client, project, command="python3 train.py", config={"env": {"GO_FILE": str(go)}}, **push_body()
        ).json()
        wait_for(lambda: client.get(f"/api/jobs/{job['id']}/metrics").json()["points"])
    log = settings.data_dir / "jobs" / job["id"] / "output.log"
    with log.open("a") as handle:  # as if the old server died after writing, before saving
        handle.write("before 49\n")
    go.touch()

    with make_client(settings) as client:
        done = wait_job(client, job["id"])
        assert done["status"] == "succeeded", done
        lines = read_log(client, job["id"]).splitlines()
        metrics = client.get(f"/api/jobs/{job['id']}/metrics").json()["points"]
    assert lines == (
        [f"before {i}" for i in range(50)]
        + [f"MNNWB_METRIC {json.dumps({'step': 1})}"]
        + [f"after {i}" for i in range(50)]
        + [f"MNNWB_METRIC {json.dumps({'step': 2})}"]
    )
    assert metrics == [{"step": 1}, {"step": 2}]
