"""The flow's device steps: deploy (the project synced to a paired device) and measure (a
benchmark on it), read from the links ``server/flow/device_records.py`` keeps."""

from sqlmodel import Session

from server.devices.models import Device
from server.flow.facts import Facts, Made, name
from server.flow.models import FlowNext, FlowStep
from server.lineage.models import LineageLink


def _device_name(session: Session, device_id: str) -> str:
    device = session.get(Device, device_id)
    return device.name if device else device_id


def _last_device(facts: Facts) -> str | None:
    """The device the project last deployed to or measured on."""
    links = facts.links(LineageLink.kind.in_(("deploy", "bench")))  # type: ignore[attr-defined]
    return next((str(link.facts["device_id"]) for link in links if link.facts.get("device_id")),
                None)


def deploy_step(facts: Facts, model: Made | None) -> tuple[FlowStep, str | None]:
    """``model`` is the newest model the steps before made; also returns its device."""
    device_id = _last_device(facts)
    label = f"Deploy to {_device_name(facts.session, device_id)}" if device_id else "Deploy to a device"
    args = {"device_id": device_id} if device_id else {}
    following = FlowNext(action="deploy", label=label, args=args)
    newest = next(iter(facts.links(LineageLink.kind == "deploy")), None)
    if newest is None:
        return FlowStep(id="deploy", title="Deploy", state="todo", next=following,
                        detail="Not deployed to a device yet"), device_id
    deployed = facts.links(LineageLink.kind == "deploy", LineageLink.ref_id == newest.ref_id)
    where = _device_name(facts.session, str(newest.facts.get("device_id")))
    when = newest.created_at.strftime("%Y-%m-%d %H:%M")
    shown = next((Made(d.path_at_time, d.sha256) for d in deployed
                  if model and d.sha256 == model.sha256), None)
    if model is not None and shown is None:
        return FlowStep(id="deploy", title="Deploy", state="stale", next=following,
                        detail=f"{where} has an older {name(model.path)} (deployed {when} UTC)"), device_id
    artifact = facts.artifact(shown) if shown else None
    return FlowStep(id="deploy", title="Deploy", state="done", artifact=artifact, next=following,
                    detail=f"On {where} since {when} UTC"), device_id


def measure_step(facts: Facts, model: Made | None, device_id: str | None) -> FlowStep:
    args = {k: v for k, v in (("device_id", device_id), ("model", model.path if model else None))
            if v}
    label = f"Benchmark on {_device_name(facts.session, device_id)}" if device_id else "Benchmark on a device"
    following = FlowNext(action="measure", label=label, args=args)
    newest = next(iter(facts.links(LineageLink.kind == "bench")), None)
    if newest is None:
        return FlowStep(id="measure", title="Measure", state="todo", next=following,
                        detail="Not measured on a device yet")
    where = _device_name(facts.session, str(newest.facts.get("device_id")))
    if not newest.facts.get("ok"):
        return FlowStep(id="measure", title="Measure", state="failed", next=following,
                        detail=f"Benchmark on {where} failed: {newest.facts.get('error')}")
    measured = Made(newest.path_at_time, newest.sha256)
    median = newest.facts.get("median_ms")
    detail = f"{name(measured.path)} on {where}: median {median:.2f} ms" if isinstance(
        median, (int, float)) else f"{name(measured.path)} on {where}"
    current = model is None or (model.sha256 == measured.sha256
                                and newest.facts.get("device_id") == device_id)
    return FlowStep(id="measure", title="Measure", state="done" if current else "stale",
                    artifact=facts.artifact(measured), next=following,
                    detail=detail if current else f"{detail}, not the current model")
