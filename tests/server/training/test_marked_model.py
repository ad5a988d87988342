""""Use this model": a succeeded job marked as the one the flow continues from, kept across a
restart, one at a time; the flow's train step and convert's arguments follow it, and a marked job
or model file that is gone fails the step by name. Real jobs write real ONNX models."""

from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import Session

from server.core.db import make_engine
from server.training.models import Job
from tests.conftest import make_client
from tests.server.flow.test_flow import flow
from tests.server.training.test_jobs_api import create_project, submit, wait_job

# A one-op ONNX model whose weight is $SCALE, so each job's model has its own content.
TRAIN = (
    "import json, os\n"
    "import numpy as np\n"
    "from onnx import TensorProto, helper, numpy_helper, save\n"
    "scale = float(os.environ.get('SCALE', '1'))\n"
    "weight = numpy_helper.from_array(np.full([1, 2], scale, np.float32), 'w')\n"
    "graph = helper.make_graph([helper.make_node('Mul', ['input', 'w'], ['out'])], 'g',\n"
    "    [helper.make_tensor_value_info('input', TensorProto.FLOAT, [1, 2])],\n"
    "    [helper.make_tensor_value_info('out', TensorProto.FLOAT, [1, 2])], [weight])\n"
    "out = os.environ['MNNWB_OUTPUT_DIR']\n"
    "os.makedirs(out, exist_ok=True)\n"
    "save(helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)]),\n"
    "     os.path.join(out, 'model.onnx'))\n"
    "for step in range(3):\n"
    "    print('MNNWB_METRIC ' + json.dumps({'step': step, 'loss': scale / (step + 1)}))\n"
)


def trained(client: TestClient, project: dict, scale: int) -> dict:
    job = submit(client, project, command="python train.py", config={"env": {"SCALE": str(scale)}})
    job = wait_job(client, job["id"])
    assert job["status"] == "succeeded", job
    return job


def training_project(client: TestClient, name: str = "trained") -> dict:
    project = create_project(client, name=name)
    Path(project["path"], "train.py").write_text(TRAIN)
    return project


def marked_url(project: dict) -> str:
    return f"/api/projects/{project['id']}/jobs/marked"


def test_the_flow_continues_from_the_marked_job_until_it_is_unmarked(client: TestClient) -> None:
    project = training_project(client)
    first, second = trained(client, project, 1), trained(client, project, 2)
    assert client.get(marked_url(project)).json() == {"job_id": None, "marked_at": None}
    assert flow(client, project)["train"]["artifact"]["path"] == f"outputs/{second['id']}/model.onnx"

    marked = client.put(marked_url(project), json={"job_id": first["id"]})
    assert marked.status_code == 200, marked.text
    assert marked.json()["job_id"] == first["id"] and marked.json()["marked_at"]
    steps = flow(client, project)
    model = f"outputs/{first['id']}/model.onnx"
    assert steps["train"]["state"] == "done"
    assert steps["train"]["artifact"]["path"] == model
    assert f"job {first['id'][:8]} (marked)" in steps["train"]["detail"]
    assert steps["convert"]["next"]["args"] == {"model": model, "output": "model.mnn"}

    # one at a time: marking the other replaces the mark
    client.put(marked_url(project), json={"job_id": second["id"]})
    assert client.get(marked_url(project)).json()["job_id"] == second["id"]
    assert f"job {second['id'][:8]} (marked)" in flow(client, project)["train"]["detail"]

    unmarked = client.delete(marked_url(project))
    assert unmarked.status_code == 200 and unmarked.json()["job_id"] is None
    steps = flow(client, project)
    assert "(marked)" not in steps["train"]["detail"]
    assert steps["train"]["artifact"]["path"] == f"outputs/{second['id']}/model.onnx"


def test_only_a_succeeded_job_of_the_project_is_marked(client: TestClient) -> None:
    project = training_project(client)
    failed = wait_job(client, submit(client, project, command="python -c 'raise SystemExit(3)'")["id"])
    assert failed["status"] == "failed"
    refused = client.put(marked_url(project), json={"job_id": failed["id"]})
    assert refused.status_code == 409 and refused.json()["code"] == "job_not_succeeded"
    other = training_project(client, "other")
    elsewhere = trained(client, other, 1)
    refused = client.put(marked_url(project), json={"job_id": elsewhere["id"]})
    assert refused.status_code == 404 and refused.json()["code"] == "job_not_found"
    assert client.get(marked_url(project)).json()["job_id"] is None


def test_a_marked_model_that_is_gone_is_named_and_the_mark_survives_a_restart(settings) -> None:
    with make_client(settings) as client:
        project = training_project(client)
        marked, newer = trained(client, project, 1), trained(client, project, 2)
        assert client.put(marked_url(project), json={"job_id": marked["id"]}).status_code == 200
    with make_client(settings) as client:
        assert client.get(marked_url(project)).json()["job_id"] == marked["id"]
        model = f"outputs/{marked['id']}/model.onnx"
        Path(project["path"], model).unlink()
        steps = flow(client, project)
        assert steps["train"]["state"] == "failed"
        assert steps["train"]["detail"].startswith(f"{model} of the marked job {marked['id'][:8]} is gone")
        assert steps["train"]["artifact"] is None
        assert steps["convert"]["next"]["args"] == {}  # not the newer job's model

        engine = make_engine(settings.db_url)
        with Session(engine) as session:  # no route deletes a job: its row goes as a database would lose it
            session.delete(session.get(Job, marked["id"]))
            session.commit()
        engine.dispose()
        steps = flow(client, project)
        assert steps["train"]["state"] == "failed"
        assert f"The marked job {marked['id'][:8]} no longer exists" in steps["train"]["detail"]
        assert newer["id"][:8] not in steps["train"]["detail"]
