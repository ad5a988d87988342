"""Write the character list a PP-OCR recogniser carries in its ONNX metadata (``character``),
one per line, with the space PaddleOCR appends: ``python tools/characters.py REC.onnx
models/ppocr_keys.txt``. Needs the ``onnx`` package."""

import sys

import onnx


def main(source: str, target: str) -> None:
    model = onnx.load(source, load_external_data=False)
    props = {p.key: p.value for p in model.metadata_props}
    if "character" not in props:
        sys.exit(f"{source} carries no character list")
    with open(target, "w", encoding="utf-8") as out:
        out.write("\n".join([*props["character"].splitlines(), " "]) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
