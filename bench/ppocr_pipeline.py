"""The real OCR pipeline (PaddleOCR's PP-OCRv4 det → cls → rec, tests/fakes/ppocr.py): its
stages' times, and what the pipeline runtime adds over the same models in a bare loop.

    python bench/ppocr_pipeline.py [--rounds N]

Converts the three models from the rapidocr-onnxruntime wheel (``make setup`` installs it)
and runs the pipeline on two images — two lines of text rendered with Pillow, and
scikit-image's photo of a printed page — interleaved with a bare loop doing the same work by
hand (decode, the detector, the regions, a cut per region, the classifier, the turn, the
recogniser and its text; the same preprocessing functions, none of the runtime's stages,
items, summaries or timeline). Prints per image the medians of both, the median of the pairs'
ratios (goal <= 1.05) in wall time and in this process's CPU time (which other work on the
machine disturbs less), each stage's median and the machine's load.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from pipeline_overhead import convert  # noqa: E402

from device_bridge.runtime import decode, pipeline, preprocess, spec, steps  # noqa: E402
from device_bridge.runtime.engine import Session  # noqa: E402
from tests.fakes import ppocr  # noqa: E402
from tests.fakes.photos import photo  # noqa: E402


class Bare:
    """The chain by hand, with its own sessions."""

    def __init__(self, folder: Path) -> None:
        self.models = {
            name: (Session(folder / f"{name}.mnn"), spec.load(folder / f"{name}.mnn")) for name in ppocr.FILES
        }
        self.characters = spec.read_list(folder / "rec.mnn", ppocr.CHARACTERS)

    def _run(self, name: str, pixels: np.ndarray, **fit: int) -> tuple[dict, preprocess.Frame]:
        session, own = self.models[name]
        assert own is not None
        shape = own.inputs[0].run_shape() or []
        tensor, frame = preprocess.aspect_tensor(own.inputs[0], shape, pixels, **fit)
        return session.run({"x": tensor}), frame

    def __call__(self, image: Path) -> tuple[float, float, list[str]]:
        start, cpu = time.perf_counter(), time.process_time()
        pixels = preprocess.decode_image(image)
        bgr = pixels[:, :, ::-1]
        out, frame = self._run("det", bgr, multiple=32, max_side=960)
        picture = steps.Picture(pixels)
        rows = []
        for corners, score in steps.map_to_quads(out["sigmoid_0.tmp_0"], 0.3, 10, 0.6, 1.6):
            quad = [[round(v, 2) for v in frame.to_file(x, y)] for x, y in corners]  # as reported
            xs, ys = [c[0] for c in quad], [c[1] for c in quad]
            rows.append({"box": [min(xs), min(ys), max(xs), max(ys)], "quad": quad, "score": score})
        texts = []
        for row in steps.reading_order(rows):
            crop = steps.crop_quad(picture, row["quad"], 0)
            probabilities = self._run("cls", crop.pixels[:, :, ::-1])[0]["save_infer_model/scale_0.tmp_1"][0]
            if int(np.argmax(probabilities)) == 1 and float(probabilities[1]) >= 0.9:
                crop = steps.rotate(crop, 180)
            read = self._run("rec", crop.pixels[:, :, ::-1], multiple=8, max_side=1920)[0]
            own = self.models["rec"][1]
            assert own is not None
            texts.append(decode.text(own.outputs[0], read["softmax_11.tmp_0"], self.characters)["text"])
        return time.perf_counter() - start, time.process_time() - cpu, texts


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    from PIL import Image, ImageDraw, ImageFont

    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        runner = pipeline.Runner(pipeline.load(ppocr.build(folder, convert)))
        bare = Bare(folder)
        rendered = folder / "rendered.png"
        image = Image.new("RGB", (640, 180), "white")
        draw = ImageDraw.Draw(image)
        for index, line in enumerate(("MNN Workbench 2026", "Pipelines on device")):
            draw.text((30, 30 + 60 * index), line, fill="black", font=ImageFont.load_default(size=32))
        image.save(rendered)
        load = os.getloadavg()[0]
        print(f"load average {load:.2f} on {os.cpu_count()} cores, {args.rounds} pairs per image")
        for name, path in (("rendered text 640x180", rendered), ("page.png 384x191", photo("page.png"))):
            result = runner.run(path)
            texts = bare(path)[2]  # both warm
            read = [i["outputs"]["softmax_11.tmp_0"]["text"] for i in result["stages"][-1]["items"]]
            assert read == texts, (read, texts)  # the same work, the same answers
            ours, theirs, ours_cpu, theirs_cpu, stages = [], [], [], [], {}
            for _ in range(args.rounds):
                wall, cpu, _ = bare(path)
                theirs.append(wall)
                theirs_cpu.append(cpu)
                begin, begin_cpu = time.perf_counter(), time.process_time()
                result = runner.run(path)
                ours.append(time.perf_counter() - begin)
                ours_cpu.append(time.process_time() - begin_cpu)
                for stage in result["stages"]:
                    stages.setdefault(stage["id"], []).append(stage["ms"])
            ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
            print(f"{name}: {len(read)} lines")
            print(f"  pipeline runtime  median {statistics.median(ours) * 1000:7.2f} ms")
            print(f"  bare loop         median {statistics.median(theirs) * 1000:7.2f} ms")
            print(f"  ratio (median of pairs) {statistics.median(ratios):.3f}  (goal <= 1.05)")
            cpu_ratios = [a / b for a, b in zip(ours_cpu, theirs_cpu, strict=True)]
            print(
                f"  CPU time: runtime {statistics.median(ours_cpu) * 1000:.2f} ms, bare "
                f"{statistics.median(theirs_cpu) * 1000:.2f} ms, ratio {statistics.median(cpu_ratios):.3f}"
            )
            medians = ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in stages.items())
            print(f"  stages (ms): {medians}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
