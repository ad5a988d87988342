"""Write the web UI's API types from the server's OpenAPI document.

``python scripts/openapi_types.py [out.ts]`` builds the app (no server runs, no database is
opened), writes ``app.openapi()`` to a JSON file and runs openapi-typescript on it into
``webui/src/api/schema.gen.ts`` (or ``out.ts``). ``tests/webui/test_api_types.py`` fails when the
committed file differs from what this writes. The UI's types alias the generated schemas
(``components["schemas"]["ProjectPublic"]``), so no field of a payload is copied by hand.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
WEBUI = REPO_ROOT / "webui"
TARGET = WEBUI / "src" / "api" / "schema.gen.ts"
GENERATOR = WEBUI / "scripts" / "openapi-types.mjs"


def openapi_document() -> dict:
    """``app.openapi()`` of an app built on a throwaway data folder."""
    sys.path.insert(0, str(REPO_ROOT))
    from server.app import create_app
    from server.core.config import Settings

    with tempfile.TemporaryDirectory(prefix="mnnwb-openapi-") as data_dir:
        return create_app(Settings(data_dir=Path(data_dir))).openapi()


def write_types(target: Path = TARGET) -> None:
    """Generate ``target`` from the app's OpenAPI document."""
    with tempfile.TemporaryDirectory(prefix="mnnwb-openapi-") as folder:
        schema = Path(folder) / "openapi.json"
        schema.write_text(json.dumps(openapi_document(), indent=1, sort_keys=True))
        subprocess.run(["node", str(GENERATOR), str(schema), str(target.resolve())],
                       cwd=WEBUI, check=True)


if __name__ == "__main__":
    write_types(Path(sys.argv[1]) if len(sys.argv) > 1 else TARGET)
