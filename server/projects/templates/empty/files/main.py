"""A starting point: prints a metric line and writes an artifact, as every workbench job can."""

import json
import os
from pathlib import Path


def main() -> None:
    out_dir = Path(os.environ.get("MNNWB_OUTPUT_DIR", "outputs"))
    out_dir.mkdir(parents=True, exist_ok=True)
    print("hello from MNN Workbench")
    # Lines like this one are charted in the Training panel.
    print("MNNWB_METRIC " + json.dumps({"step": 1, "value": 1.0}))
    (out_dir / "hello.txt").write_text("replace me with your model\n")


if __name__ == "__main__":
    main()
