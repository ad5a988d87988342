"""The README of a real pretrained algorithm's package: what it is, where it comes from, its
license and the figures its build measured."""

from server.market.builtin.real.algorithm import RealAlgorithm
from server.market.package import PackageManifest


def _quantized(algorithm: RealAlgorithm, manifest: PackageManifest) -> str:
    extra = manifest.metrics.model_extra or {}
    same = f"{extra['int8_same_answers']:.0%} of the answers the fp32 model gives"
    if "int8_accuracy" in extra:
        same += f", accuracy {extra['int8_accuracy']:.4f}"
    size = f"{extra['int8_size_bytes']:,} bytes"
    if extra["int8_kept"]:
        int8 = f"{algorithm.stem}-int8.mnn"
        latency = manifest.metrics.latency[1].median_ms
        return (f"* `{int8}`, 8-bit weights ({size}, median latency {latency:.3f} ms) is kept: "
                f"{same}. Run it with `python demo.py --model {int8}`.\n")
    return (f"* The 8-bit-weight conversion ({size}) is **not** shipped: it gave {same}, "
            "so its accuracy does not hold.\n")


def _sources(algorithm: RealAlgorithm) -> str:
    return "; ".join(
        f"`{algorithm.source_name(stem)}` is `{upstream.member}` from "
        f"`{upstream.pin.requirement}` on PyPI" for stem, upstream in algorithm.models().items())


def readme(algorithm: RealAlgorithm, manifest: PackageManifest) -> str:
    metrics = manifest.metrics
    fp32 = metrics.latency[0]
    accuracy = (f"* accuracy {metrics.accuracy:.4f} on {metrics.eval_set} (the converted `.mnn` "
                "model, through `demo.py`'s own code)\n" if metrics.accuracy is not None
                else f"* no accuracy figure: {metrics.eval_set}\n")
    licenses = ", ".join(f"`{name}`" for name in algorithm.licenses)
    return (
        f"# {algorithm.name}\n\n{algorithm.summary}.\n\n{algorithm.about}\n\n"
        f"## Source and license\n\n{_sources(algorithm)}, license {algorithm.license}, by "
        f"{', '.join(algorithm.authors)}; the upstream license text is in {licenses}. "
        "Converted to MNN unchanged; each `.mnn` has its model spec beside it "
        "(`<model>.model.toml`).\n\n"
        f"## Samples\n\n{algorithm.credits}\n\n"
        "## Figures\n\n"
        f"{accuracy}"
        f"* model size {metrics.size_bytes:,} bytes\n"
        f"* median latency {fp32.median_ms:.3f} ms over {fp32.runs} runs, {fp32.threads} "
        f"thread, on {fp32.device}, pre- and post-processing included\n"
        f"{_quantized(algorithm, manifest)}\n"
        "## Run it\n\n`python demo.py` runs the samples in `samples/` and prints each answer "
        "beside the one expected; `python demo.py INPUT.npy` runs your own array (the "
        "sample files show its form). It needs numpy and MNN only, so it runs unchanged on a "
        "device agent.\n"
    )
