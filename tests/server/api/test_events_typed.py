"""Every websocket event is a typed model: producers ``emit`` ``TabEvent`` models, never a raw
``publish(channel, type, dict)``; every model is a member of ``ServerEvent`` and every member is
made somewhere (``server/api/events.py``); what the hub sends validates against the union.

The scan reads ``server/`` and ``device_bridge/`` as source (AST), like ``test_error_codes.py``.
Every ``emit`` takes a ``TabEvent`` (mypy checks the call), so "every emitted model is a member"
is "every ``TabEvent`` subclass is a member", checked on the live classes.
"""

import ast
import importlib.util
from pathlib import Path

from pydantic import TypeAdapter

from device_bridge import tab_events as device
from device_bridge.tab_events import TabEvent
from server.api.events import EVENTS, ServerEvent, SysHello
from server.app import create_app  # noqa: F401 - imports every producer, so every model exists
from server.core.config import REPO_ROOT
from server.core.events import EventHub
from server.files.events import FilesChanged, GitChanged

ROOTS = (REPO_ROOT / "server", REPO_ROOT / "device_bridge")
HUB = REPO_ROOT / "server" / "core" / "events.py"
UNION = REPO_ROOT / "server" / "api" / "events.py"
# ``.publish`` calls that are not the event hub's: a market package's registry.
OTHER_PUBLISHERS = {"registry"}


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for root in ROOTS
            for path in sorted(root.rglob("*.py")) if "templates" not in path.parts]


def _receiver(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _raw_publishes(path: Path, tree: ast.Module) -> list[str]:
    return [f"{path.relative_to(REPO_ROOT)}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "publish" and _receiver(node.func.value) not in OTHER_PUBLISHERS]


def _made(tree: ast.Module) -> set[str]:
    """Names of classes called (``X(...)``, ``X.model_construct``/``model_validate``) or listed as
    a table's values (``RELAYED``)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("model_construct", "model_validate"):
                func = func.value
            found.add(_receiver(func))
        elif isinstance(node, ast.Dict):
            found |= {value.id for value in node.values if isinstance(value, ast.Name)}
    return found


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _subclasses(sub)
    return found


def test_the_scan_sees_a_raw_publish() -> None:
    tree = ast.parse('hub.publish("p", "files", "changed", {})\nregistry.publish(s, settings)\n')
    assert _raw_publishes(Path(REPO_ROOT / "x.py"), tree) == ["x.py:1"]


def test_nothing_but_the_hub_publishes_a_raw_event() -> None:
    raw = [use for path, tree in _sources() if path != HUB for use in _raw_publishes(path, tree)]
    assert not raw, "emit a TabEvent model (device_bridge/tab_events.py) instead:\n" + "\n".join(raw)


def test_every_event_model_is_a_member_of_the_union() -> None:
    missing = {cls.__name__ for cls in _subclasses(TabEvent)} - {event.__name__ for event in EVENTS}
    assert not missing, f"add these to EVENTS in server/api/events.py: {sorted(missing)}"


def test_each_channel_and_type_is_one_member() -> None:
    kinds = [(event.CHANNEL, event.TYPE) for event in EVENTS]
    assert len(kinds) == len(set(kinds)), sorted(kinds)


def test_every_member_is_made_somewhere() -> None:
    made = set().union(*(_made(tree) for path, tree in _sources() if path != UNION))
    unmade = [event.__name__ for event in EVENTS if event.__name__ not in made]
    assert not unmade, f"no code makes these events: remove them from EVENTS or emit them: {unmade}"


def test_what_the_hub_sends_validates_against_the_union() -> None:
    hub = EventHub()
    sub, _ = hub.subscribe("p")
    sent: list[TabEvent] = [
        FilesChanged(changes=[{"kind": "modified", "path": "a.py", "etag": "e1"}], client="tab-1"),
        GitChanged(op="outside", paths=["refs/heads/x"]),
        device.DeviceErrorEvent.model_construct(sid=None, code="bad_command", message="no", ref="x"),
        device.PerfBatch(sid="s1", samples=[device.PerfSample(t=1.0, cpu=2.0, rss=3, threads=4)]),
        SysHello(seq=4, project="p"),
    ]
    for event in sent:
        hub.emit("p", event)
    union = TypeAdapter(ServerEvent)
    for event in sent:
        wire = sub.queue.get_nowait().model_dump_json()
        parsed = union.validate_json(wire)
        assert (parsed.channel, parsed.type) == (event.CHANNEL, event.TYPE)
        assert type(parsed.data) is type(event) and parsed.data.payload() == event.payload()


def test_a_field_left_out_while_unset_is_not_sent() -> None:
    assert GitChanged(op="commit").payload() == {"op": "commit", "client": None}
    error = device.DeviceErrorEvent(sid=None, code="x", message="m")
    assert error.payload() == {"sid": None, "code": "x", "message": "m"}


def test_docs_list_every_event() -> None:
    path = REPO_ROOT / "scripts" / "events_doc.py"
    spec = importlib.util.spec_from_file_location("events_doc", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.section(script.DOC.read_text(encoding="utf-8")) == script.render(), (
        "docs/api.md's event table is stale: run .venv/bin/python scripts/events_doc.py")
