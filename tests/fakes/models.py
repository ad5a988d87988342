"""Small real models built with ``onnx.helper``, and calibration images, for tests and benches."""

import struct
import zlib
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


class _Graph:
    """Accumulates nodes and initializers with deterministic weights."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.weights: list[onnx.TensorProto] = []

    def const(self, name: str, shape: tuple[int, ...], scale: float) -> str:
        value = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.weights.append(numpy_helper.from_array(value, name))
        return name

    def conv(self, x: str, name: str, cin: int, cout: int, k: int = 3, stride: int = 1) -> str:
        scale = (2.0 / (cin * k * k)) ** 0.5
        w = self.const(f"{name}.w", (cout, cin, k, k), scale)
        b = self.const(f"{name}.b", (cout,), 0.05)
        pad = k // 2
        self.nodes.append(
            helper.make_node(
                "Conv",
                [x, w, b],
                [f"{name}.out"],
                name=name,
                pads=[pad] * 4,
                strides=[stride, stride],
            )
        )
        self.nodes.append(helper.make_node("Relu", [f"{name}.out"], [f"{name}.relu"], name=f"{name}_relu"))
        return f"{name}.relu"

    def head(self, x: str, cin: int, classes: int, out: str, scale: float = 1.0) -> str:
        self.nodes.append(helper.make_node("GlobalAveragePool", [x], ["pooled"], name="gap"))
        self.nodes.append(helper.make_node("Flatten", ["pooled"], ["flat"], name="flatten"))
        w = self.const("fc.w", (classes, cin), scale * (1.0 / cin) ** 0.5)
        b = self.const("fc.b", (classes,), scale * 0.05)
        self.nodes.append(helper.make_node("Gemm", ["flat", w, b], [out], name="fc", transB=1))
        return out

    def save(self, path: Path, inputs: list, outputs: list) -> Path:
        graph = helper.make_graph(self.nodes, path.stem, inputs, outputs, self.weights)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, str(path))
        return path


def _io(name: str, shape: list) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def conv_net(path: Path, size: int = 32, width: int = 8) -> Path:
    """Two convolutions and a classifier: input [1,3,size,size] → output [1,10]."""
    g = _Graph(seed=1)
    x = g.conv("input", "conv1", 3, width)
    x = g.conv(x, "conv2", width, width * 2, stride=2)
    g.head(x, width * 2, 10, "output")
    return g.save(path, [_io("input", [1, 3, size, size])], [_io("output", [1, 10])])


def vanishing_net(path: Path, size: int = 32) -> Path:
    """``conv_net`` with a classifier scaled by 1e-9: outputs of ~1e-9, like a random-weight net's."""
    g = _Graph(seed=1)
    x = g.conv("input", "conv1", 3, 8)
    x = g.conv(x, "conv2", 8, 16, stride=2)
    g.head(x, 16, 10, "output", scale=1e-9)
    return g.save(path, [_io("input", [1, 3, size, size])], [_io("output", [1, 10])])


def dynamic_batch_net(path: Path) -> Path:
    """Like ``conv_net`` with a symbolic batch dimension ``N``."""
    g = _Graph(seed=2)
    x = g.conv("input", "conv1", 3, 8)
    g.head(x, 8, 5, "output")
    return g.save(path, [_io("input", ["N", 3, 16, 16])], [_io("output", ["N", 5])])


def multi_output_net(path: Path) -> Path:
    """Two outputs: ``logits`` [1,4] and ``features`` [1,8,8,8]."""
    g = _Graph(seed=3)
    features = g.conv("input", "conv1", 3, 8, stride=2)
    g.nodes.append(helper.make_node("Identity", [features], ["features"], name="features"))
    g.head(features, 8, 4, "logits")
    outputs = [_io("logits", [1, 4]), _io("features", [1, 8, 8, 8])]
    return g.save(path, [_io("input", [1, 3, 16, 16])], outputs)


def sequence_net(path: Path, channels: int = 4, length: int = 16) -> Path:
    """A non-image model: input [1, channels, length] → Conv1d, MatMul, Add, Relu → [1, channels, 8]."""
    g = _Graph(seed=6)
    mix = g.const("mix.w", (channels, channels, 1), 0.3)
    proj = g.const("proj.w", (length, 8), 0.3)
    bias = g.const("proj.b", (8,), 0.1)
    g.nodes += [
        helper.make_node("Conv", ["input", mix], ["mixed"], name="mix"),
        helper.make_node("MatMul", ["mixed", proj], ["projected"], name="proj"),
        helper.make_node("Add", ["projected", bias], ["biased"], name="bias"),
        helper.make_node("Relu", ["biased"], ["output"], name="relu"),
    ]
    inputs, outputs = [_io("input", [1, channels, length])], [_io("output", [1, channels, 8])]
    return g.save(path, inputs, outputs)


def sequence_samples(folder: Path, count: int, shape: tuple[int, ...], seed: int = 7) -> Path:
    """Calibration samples for ``sequence_net``: one ``.npy`` array per sample."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for index in range(count):
        np.save(folder / f"sample{index:03d}.npy", rng.uniform(-1, 1, shape).astype(np.float32))
    return folder


def stacked_net(path: Path, size: int, widths: list[int], seed: int = 4) -> Path:
    """A plain stack of 3×3 conv layers (stride 2 where the width grows) and a classifier."""
    g = _Graph(seed=seed)
    x, cin = "input", 3
    for index, cout in enumerate(widths):
        x = g.conv(x, f"conv{index}", cin, cout, stride=2 if cout > cin and index else 1)
        cin = cout
    g.head(x, cin, 10, "output")
    return g.save(path, [_io("input", [1, 3, size, size])], [_io("output", [1, 10])])


def medium_net(path: Path) -> Path:
    """About 120 M-MAC (~2 ms here): the per-op callbacks' own cost is small next to the ops."""
    return stacked_net(path, 64, [32, 64, 64, 128, 128])


def bench_net(path: Path) -> Path:
    """About 300 M-MAC with some 2.5 M parameters, a mobile-sized classifier."""
    return stacked_net(path, 96, [32, 64, 64, 128, 128, 256, 256, 512])


def macs(path: Path) -> int:
    """Multiply-accumulates of the Conv and Gemm nodes of a model made here."""
    model = onnx.shape_inference.infer_shapes(onnx.load(str(path)))
    shapes = {
        v.name: [d.dim_value or 1 for d in v.type.tensor_type.shape.dim]
        for v in [*model.graph.value_info, *model.graph.output]
    }
    weights = {w.name: list(w.dims) for w in model.graph.initializer}
    total = 0
    for node in model.graph.node:
        if node.op_type in ("Conv", "Gemm"):
            out = shapes[node.output[0]]
            total += int(np.prod(out)) * int(np.prod(weights[node.input[1]][1:]))
    return total


def write_png(path: Path, pixels: np.ndarray) -> Path:
    """Write an RGB uint8 array (H, W, 3) as a PNG with zlib only."""
    height, width, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + body)
    return path


def calibration_images(folder: Path, count: int, size: int, seed: int = 5) -> Path:
    """Smooth random colour images (gradients plus noise), like natural pictures' statistics."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    ys, xs = np.mgrid[0:size, 0:size] / size
    for index in range(count):
        base = np.stack(
            [ys * rng.uniform(0, 255), xs * rng.uniform(0, 255), (ys + xs) * rng.uniform(0, 127)],
            axis=-1,
        )
        noisy = base + rng.normal(0, 20, base.shape)
        write_png(folder / f"sample{index:03d}.png", np.clip(noisy, 0, 255).astype(np.uint8))
    return folder
