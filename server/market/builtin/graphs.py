"""ONNX graphs of the built-in algorithms, written with ``onnx.helper`` from trained weights."""

from collections.abc import Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 8


def _model(nodes: list[onnx.NodeProto], weights: dict[str, np.ndarray], name: str,
           inputs: Sequence[tuple[str, list[int]]],
           outputs: Sequence[tuple[str, list[int]]]) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v, dtype=np.float32), k)
                     for k, v in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="mnn-workbench")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def classifier(name: str, input_shape: list[int], layers: Sequence[tuple[np.ndarray, np.ndarray]],
               classes: int) -> onnx.ModelProto:
    """Flatten → (Gemm → Relu)* → Gemm → Softmax: input ``input``, output ``probabilities``.

    ``layers`` are (weights of shape (in, out), bias) pairs, as scikit-learn keeps them.
    """
    nodes = [helper.make_node("Flatten", ["input"], ["h0"], axis=1)]
    weights: dict[str, np.ndarray] = {}
    for index, (weight, bias) in enumerate(layers):
        weights[f"w{index}"], weights[f"b{index}"] = weight, bias
        nodes.append(helper.make_node("Gemm", [f"h{index}", f"w{index}", f"b{index}"],
                                      [f"z{index}"]))
        if index == len(layers) - 1:
            nodes.append(helper.make_node("Softmax", [f"z{index}"], ["probabilities"], axis=1))
        else:
            nodes.append(helper.make_node("Relu", [f"z{index}"], [f"h{index + 1}"]))
    return _model(nodes, weights, name, [("input", input_shape)],
                  [("probabilities", [input_shape[0], classes])])


def reconstruction_error(name: str, mean: np.ndarray, components: np.ndarray) -> onnx.ModelProto:
    """A linear autoencoder (PCA): input ``input`` [1, n] → output ``score`` [1, 1], the mean
    squared error of the window rebuilt from its ``components`` (k, n)."""
    weights = {"mean": mean[None, :], "encode": components.T, "decode": components}
    nodes = [
        helper.make_node("Sub", ["input", "mean"], ["centred"]),
        helper.make_node("MatMul", ["centred", "encode"], ["code"]),
        helper.make_node("MatMul", ["code", "decode"], ["rebuilt"]),
        helper.make_node("Sub", ["centred", "rebuilt"], ["residual"]),
        helper.make_node("Mul", ["residual", "residual"], ["squared"]),
        helper.make_node("ReduceMean", ["squared"], ["score"], axes=[1], keepdims=1),
    ]
    n = int(mean.shape[0])
    return _model(nodes, weights, name, [("input", [1, n])], [("score", [1, 1])])
