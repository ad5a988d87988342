"""The flow's first steps: data, train, convert, quantize and evaluate, each read from the
project's datasets, its newest job and its newest tool runs with their lineage links."""

from pathlib import Path

from server.datasets.models import DatasetSummary
from server.datasets.service import list_datasets
from server.flow.code_change import changed_since
from server.flow.facts import Facts, Made, name
from server.flow.models import FlowArtifact, FlowNext, FlowStep, StepId, StepState
from server.modeltools.models import ACTIVE, ToolRun
from server.training.models import Job
from server.training.runner import ACTIVE_STATUSES

TRAINED_SUFFIXES = (".onnx", ".tflite", ".pb", ".caffemodel")
FAILED_RUNS = ("failed", "crashed")


def data_step(facts: Facts) -> tuple[FlowStep, DatasetSummary | None]:
    usable = [d for d in list_datasets(facts.project) if d.error is None]
    following = FlowNext(action="datasets", label="Open Datasets")
    if not usable:
        return FlowStep(id="data", title="Data", state="todo", next=following,
                        detail="No dataset in the project yet"), None
    first = usable[0]
    samples = sum(sum(c.values()) for c in first.counts.values())
    more = f" (and {len(usable) - 1} more)" if len(usable) > 1 else ""
    detail = f"{first.path}: {len(first.classes)} classes, {samples} samples{more}"
    return FlowStep(id="data", title="Data", state="done", artifact=FlowArtifact(path=first.path),
                    detail=detail, next=following), first


def _trained_model(facts: Facts, job: Job) -> Made | None:
    made = [m for m in facts.made_by("job", job.id) if m.path.endswith(TRAINED_SUFFIXES)]
    return min(made, key=lambda m: TRAINED_SUFFIXES.index(Path(m.path).suffix), default=None)


def _metrics(facts: Facts, job: Job) -> str:
    metrics = facts.job_metrics(job.id)
    shown = [f"{k} {v:.2f}" for k, v in metrics.items()
             if isinstance(v, float) and k not in ("epoch", "step")]
    return f", {', '.join(shown[:2])}" if shown else ""


def train_step(facts: Facts) -> tuple[FlowStep, Made | None]:
    """The marked job's model when one is marked, else the newest successful job's."""
    if facts.marked() is not None:
        return marked_train_step(facts)
    newest = facts.newest_job()
    done = facts.newest_job(Job.status == "succeeded")
    model = _trained_model(facts, done) if done else None
    following = FlowNext(action="train", label="Train")
    artifact = facts.artifact(model) if model else None
    if newest is None:
        return FlowStep(id="train", title="Train", state="todo", detail="No training job yet",
                        next=following), None
    if newest.status in ACTIVE_STATUSES:
        return FlowStep(id="train", title="Train", state="todo", artifact=artifact, next=following,
                        detail=f"Job {newest.id[:8]} is {newest.status}"), model
    if newest.status != "succeeded" or done is None:
        reason = f": {newest.reason}" if newest.reason else ""
        return FlowStep(id="train", title="Train", state="failed", artifact=artifact, next=following,
                        detail=f"Job {newest.id[:8]} {newest.status}{reason}"), model
    if model is None:
        return FlowStep(id="train", title="Train", state="todo", next=following,
                        detail=f"Job {done.id[:8]} wrote no model file"), None
    detail = f"{name(model.path)} from job {done.id[:8]}{_metrics(facts, done)}"
    why = _train_stale(facts, done, model)
    return FlowStep(id="train", title="Train", state="stale" if why else "done", artifact=artifact,
                    detail=f"{detail}; {why}" if why else detail, next=following), model


def marked_train_step(facts: Facts) -> tuple[FlowStep, Made | None]:
    """Train from the job marked "Use this model"; a marked job that is gone, or whose model
    file is, fails the step by name: the flow never falls back to another job silently."""
    mark = facts.marked()
    assert mark is not None
    following = FlowNext(action="train", label="Train")
    job = facts.job(mark.job_id)
    if job is None:
        return FlowStep(id="train", title="Train", state="failed", next=following,
                        detail=f"The marked job {mark.job_id[:8]} no longer exists: mark another "
                        "job's model or unmark it"), None
    model = _trained_model(facts, job)
    if model is None:
        return FlowStep(id="train", title="Train", state="failed", next=following,
                        detail=f"The marked job {job.id[:8]} wrote no model file"), None
    if facts.sha_of(model.path) is None:
        return FlowStep(id="train", title="Train", state="failed", next=following,
                        detail=f"{model.path} of the marked job {job.id[:8]} is gone: pull or "
                        "mark another job's model"), None
    detail = f"{name(model.path)} from job {job.id[:8]} (marked){_metrics(facts, job)}"
    why = _train_stale(facts, job, model)
    return FlowStep(id="train", title="Train", state="stale" if why else "done",
                    artifact=facts.artifact(model), next=following,
                    detail=f"{detail}; {why}" if why else detail), model


def _train_stale(facts: Facts, job: Job, model: Made) -> str | None:
    """Why the job's model is out of date: training code committed since, or the file changed."""
    head, changed = changed_since(facts.project.path, job.commit) if job.commit else (None, [])
    if changed and head:
        listed = ", ".join(changed[:3]) + (" …" if len(changed) > 3 else "")
        return f"{listed} changed in commit {head[:8]} since"
    if not facts.holds(model):
        return f"{model.path} no longer holds it"
    return None


def _run_state(facts: Facts, run: ToolRun, made: Made | None,
               upstream: list[Made]) -> tuple[StepState, str]:
    """``(state, why)`` of a run's latest success against what the steps before made now."""
    if run.status in ACTIVE:
        return "todo", f"run {run.id[:8]} is {run.status}"
    if run.status in FAILED_RUNS:
        first_line = next(iter((run.error or "").splitlines()), "no error given")
        return "failed", f"run {run.id[:8]} failed: {first_line}"
    if run.status != "succeeded":
        return "todo", f"run {run.id[:8]} was {run.status}"
    used = {m.sha256 for m in facts.used_by("tool_run", run.id)}
    moved = [m for m in upstream if m.sha256 not in used]
    if moved:
        return "stale", f"made from an older {name(moved[0].path)}"
    if made is not None and not facts.holds(made):
        return "stale", f"{made.path} has changed since"
    return "done", ""


def run_step(facts: Facts, tool: StepId, title: str, upstream: list[Made],
             following: FlowNext) -> tuple[FlowStep, Made | None]:
    """A convert or quantize step: its newest run, and the file its newest success made."""
    newest = facts.newest_run(tool)
    success = facts.newest_run(tool, ToolRun.status == "succeeded")
    made = next(iter(facts.made_by("tool_run", success.id)), None) if success else None
    if newest is None:
        return FlowStep(id=tool, title=title, state="todo", detail=f"No {tool} run yet",
                        next=following), None
    state, why = _run_state(facts, newest, made, upstream)
    source = next(iter(facts.used_by("tool_run", success.id)), None) if success else None
    detail = f"{name(made.path)} from {name(source.path)}" if made and source else ""
    if why:
        detail = f"{detail}; {why}" if detail else why[0].upper() + why[1:]
    artifact = facts.artifact(made) if made else None
    return FlowStep(id=tool, title=title, state=state, artifact=artifact,
                    detail=detail, next=following), made


def evaluate_step(facts: Facts, upstream: list[Made], following: FlowNext) -> FlowStep:
    newest = facts.newest_run("evaluate")
    if newest is None:
        return FlowStep(id="evaluate", title="Evaluate", state="todo", next=following,
                        detail="No evaluation yet")
    state, why = _run_state(facts, newest, None, upstream)
    rows = (newest.result or {}).get("models") or []
    figures = [f"{name(str(r.get('model')))} top-1 {r['top1']:.2f}" for r in rows
               if isinstance(r, dict) and isinstance(r.get("top1"), (int, float))]
    detail = "; ".join([", ".join(figures)] + ([why] if why else [])) if figures else why
    return FlowStep(id="evaluate", title="Evaluate", state=state,
                    detail=detail or "Evaluated", next=following)
