"""The web UI's API types come from ``app.openapi()``, and no payload is copied by hand.

``webui/src/api/schema.gen.ts`` is generated from the OpenAPI document by
``scripts/openapi_types.py`` (``make types``); the UI's payload types alias its schemas
(``export type Project = Schemas['ProjectPublic']``). The committed file must be what the script
writes now, so a server model that changed fails here until it is regenerated. Every hand-written
``export interface`` in ``webui/src/api/`` is listed below with why it is not an HTTP payload, and
none may share a name or its set of fields with a schema of the document: a hand copy of a
payload cannot come back unnoticed. Websocket events are in the document too (``ServerEvent``,
``server/api/events.py``), so they are aliases as well.
"""

import re
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from server.core.config import REPO_ROOT

API_DIR = REPO_ROOT / "webui" / "src" / "api"
GENERATED = API_DIR / "schema.gen.ts"
INTERFACE = re.compile(r"export interface (\w+)(?:<.+?>)?(?: extends [\w, ]+)? \{\n(.*?)\n\}", re.S)
FIELD = re.compile(r"^  (\w+)\??:", re.M)

FREE_FORM = "a part of a tool run's or a check's result, or of a device's info: free-form in the API"
SPEC = "a model spec's own fields: free-form in the API, checked by device_bridge/runtime/spec.py"
CLIENT = "a shared piece of several bodies, a client option or page data: no schema of its own"
NOT_HTTP_PAYLOADS = {
    **dict.fromkeys([
        "DiffOutput", "DiffLayer", "ChangedOp", "DiffResult", "TensorInfo", "ConvertResult", "QuantizeLayer",
        "QuantizeResult", "InspectResult", "ErrorFigures", "CompareOutput", "CompareResult",
        "BenchmarkResult", "RuntimeRecord", "QuantizeSpeed", "TryOutput",
        "TryResult", "PipelineStage", "PipelineInputResult", "PipelineResult", "QuantizeAccuracy",
        "EvaluateRequest", "EvaluatedModel", "EvaluatedClass", "EvaluateAnswer", "Disagreement",
        "EvaluateResult", "EvaluatedSample", "PipelineEvaluation"], FREE_FORM),
    **dict.fromkeys(["SpecBody", "SpecInput", "SpecOutput"], SPEC),
    **dict.fromkeys([
        "Credentials", "PaiDlcOptions", "RayOptions", "NotPushed", "RequestOptions", "ConflictBody",
        "PageConfig", "MarketQuery", "BackupMark"], CLIENT),
}


def _hand_written() -> dict[str, frozenset[str]]:
    """Each hand-written interface of ``webui/src/api/`` → the names of its own fields."""
    found = {}
    for source in sorted(API_DIR.glob("*.ts")):
        if source != GENERATED:
            for name, body in INTERFACE.findall(source.read_text()):
                found[name] = frozenset(FIELD.findall(body))
    return found


def test_the_generated_types_are_current(tmp_path: Path) -> None:
    fresh = tmp_path / "schema.gen.ts"
    subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "openapi_types.py"), str(fresh)],
                   check=True, cwd=REPO_ROOT)
    assert fresh.read_bytes() == GENERATED.read_bytes(), (
        "webui/src/api/schema.gen.ts is stale: run `make types` and commit it")


def test_every_hand_written_interface_is_listed_with_a_reason() -> None:
    hand = _hand_written()
    assert "SpecBody" in hand and hand["SpecBody"] >= {"inputs", "outputs"}  # the parser works
    new = sorted(set(hand) - NOT_HTTP_PAYLOADS.keys())
    assert not new, (f"{new}: an HTTP payload is an alias of schema.gen.ts "
                     "(export type X = Schemas['Name']); anything else goes in NOT_HTTP_PAYLOADS")
    gone = sorted(NOT_HTTP_PAYLOADS.keys() - set(hand))
    assert not gone, f"{gone} are no longer in webui/src/api/: drop them from NOT_HTTP_PAYLOADS"


def test_no_hand_written_interface_copies_a_schema(client: TestClient) -> None:
    schemas = client.app.openapi()["components"]["schemas"]
    shapes = {frozenset(schema.get("properties", {})): name for name, schema in schemas.items()
              if schema.get("properties")}
    copies = [f"{name}: named like the schema {name}" for name in _hand_written() if name in schemas]
    copies += [f"{name}: the fields of the schema {shapes[fields]}"
               for name, fields in _hand_written().items() if fields in shapes]
    assert not copies, "hand copies of API schemas (alias schema.gen.ts instead):\n" + "\n".join(copies)
