"""The README of a real pretrained algorithm's package: what it is, where it comes from, its
license and the figures its build measured."""

from server.market.builtin.real.algorithm import RealAlgorithm
from server.market.package import PackageManifest


def _quantized(manifest: PackageManifest) -> str:
    extra = manifest.metrics.model_extra or {}
    same = f"{extra['int8_same_answers']:.0%} of the answers the fp32 model gives"
    if "int8_accuracy" in extra:
        same += f", accuracy {extra['int8_accuracy']:.4f}"
    size = f"{extra['int8_size_bytes']:,} bytes"
    if extra["int8_kept"]:
        return (f"* `model-int8.mnn`, 8-bit weights ({size}) is kept: {same}. Run it with "
                "`python demo.py --model model-int8.mnn`.\n")
    return (f"* The 8-bit-weight conversion ({size}) is **not** shipped: it gave {same}, "
            "so its accuracy does not hold.\n")


def readme(algorithm: RealAlgorithm, manifest: PackageManifest) -> str:
    metrics = manifest.metrics
    fp32 = metrics.latency[0]
    accuracy = (f"* accuracy {metrics.accuracy:.4f} on {metrics.eval_set} (the converted `.mnn` "
                "model, through `demo.py`'s own code)\n" if metrics.accuracy is not None
                else f"* no accuracy figure: {metrics.eval_set}\n")
    licenses = ", ".join(f"`{name}`" for name in algorithm.licenses)
    return (
        f"# {algorithm.name}\n\n{algorithm.summary}.\n\n{algorithm.about}\n\n"
        f"## Source and license\n\nModel: `{algorithm.model.member}` from "
        f"`{algorithm.model.pin.requirement}` on PyPI, license {algorithm.license}, by "
        f"{', '.join(algorithm.authors)}; the upstream license text is in {licenses}. "
        f"Converted to MNN unchanged (`{manifest.files[0].path}`; the source model is "
        f"`{algorithm.source_name}`, its model spec `model.mnn.model.toml`).\n\n"
        "## Figures\n\n"
        f"{accuracy}"
        f"* model size {metrics.size_bytes:,} bytes\n"
        f"* median latency {fp32.median_ms:.3f} ms over {fp32.runs} runs, {fp32.threads} "
        f"thread, on {fp32.device}, pre- and post-processing included\n"
        f"{_quantized(manifest)}\n"
        "## Run it\n\n`python demo.py` runs the samples in `samples/` and prints each answer "
        "beside the one expected; `python demo.py INPUT.npy` runs your own array (the "
        "sample files show its form). It needs numpy and MNN only, so it runs unchanged on a "
        "device agent.\n"
    )
