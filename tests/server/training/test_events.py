"""What a tab sees on its websocket while a job runs: ordered log batches, metrics, status."""

from tests.server.training.test_jobs_api import create_project, read_log, submit

WS_BASE = "ws://127.0.0.1:8765"


def test_a_tab_receives_the_whole_log_in_order_with_metrics_and_status(client):
    project = create_project(client)
    command = ("python -c \"import json\nfor i in range(3000): print('line', i)\n"
               "print('MNNWB_METRIC ' + json.dumps({'step': 7, 'loss': 0.25}))\"")
    with client.websocket_connect(f"{WS_BASE}/api/projects/{project['id']}/ws") as socket:
        job = submit(client, project, command=command)
        batches: list[dict] = []
        points: list[dict] = []
        statuses: list[str] = []
        while not statuses or statuses[-1] not in ("succeeded", "failed"):
            event = socket.receive_json()
            data = event["data"]
            if event["type"] == "job.log":
                batches.append(data)
            elif event["type"] == "job.metric":
                points.extend(data["points"])
            elif event["type"] == "job.status":
                statuses.append(data["job"]["status"])
    assert statuses == ["running", "succeeded"]
    assert points == [{"step": 7, "loss": 0.25}]
    assert {b["job_id"] for b in batches} == {job["id"]}
    assert [b["offset"] for b in batches[1:]] == [b["next_offset"] for b in batches[:-1]]
    text = "".join(b["text"] for b in batches)
    assert text == read_log(client, job["id"])
    assert text.splitlines()[:3000] == [f"line {i}" for i in range(3000)]
