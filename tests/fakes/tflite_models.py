"""A small real TFLite model written with the FlatBuffers builder, so no TensorFlow is needed."""

from dataclasses import dataclass
from pathlib import Path

import flatbuffers
import numpy as np
import tflite

SCHEMA_VERSION = 3


@dataclass(frozen=True)
class DenseNet:
    """``output = relu(input @ weights.T + bias)``: input [1, 8] → output [1, 4]."""

    path: Path
    weights: np.ndarray
    bias: np.ndarray

    def reference(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(x @ self.weights.T + self.bias, 0.0).astype(np.float32)


def _ints(builder: flatbuffers.Builder, values: list[int]) -> int:
    return builder.CreateNumpyVector(np.asarray(values, np.int32))


def _vector(builder: flatbuffers.Builder, start, offsets: list[int]) -> int:
    start(builder, len(offsets))
    for offset in reversed(offsets):
        builder.PrependUOffsetTRelative(offset)
    return builder.EndVector()


def _buffer(builder: flatbuffers.Builder, data: np.ndarray | None) -> int:
    raw = builder.CreateNumpyVector(data.view(np.uint8).ravel()) if data is not None else None
    tflite.BufferStart(builder)
    if raw is not None:
        tflite.BufferAddData(builder, raw)
    return tflite.BufferEnd(builder)


def _tensor(builder: flatbuffers.Builder, name: str, shape: list[int], buffer: int) -> int:
    label, dims = builder.CreateString(name), _ints(builder, shape)
    tflite.TensorStart(builder)
    tflite.TensorAddShape(builder, dims)
    tflite.TensorAddType(builder, tflite.TensorType.FLOAT32)
    tflite.TensorAddBuffer(builder, buffer)
    tflite.TensorAddName(builder, label)
    return tflite.TensorEnd(builder)


def _fully_connected(builder: flatbuffers.Builder) -> int:
    inputs, outputs = _ints(builder, [0, 1, 2]), _ints(builder, [3])
    tflite.FullyConnectedOptionsStart(builder)
    tflite.FullyConnectedOptionsAddFusedActivationFunction(builder, tflite.ActivationFunctionType.RELU)
    options = tflite.FullyConnectedOptionsEnd(builder)
    tflite.OperatorStart(builder)
    tflite.OperatorAddOpcodeIndex(builder, 0)
    tflite.OperatorAddInputs(builder, inputs)
    tflite.OperatorAddOutputs(builder, outputs)
    tflite.OperatorAddBuiltinOptionsType(builder, tflite.BuiltinOptions.FullyConnectedOptions)
    tflite.OperatorAddBuiltinOptions(builder, options)
    return tflite.OperatorEnd(builder)


def _subgraph(builder: flatbuffers.Builder) -> int:
    # Buffer 0 is the empty one every non-constant tensor points at; 1 and 2 hold the constants.
    specs = [("input", [1, 8], 0), ("dense/weights", [4, 8], 1), ("dense/bias", [4], 2)]
    tensors = [_tensor(builder, *spec) for spec in [*specs, ("output", [1, 4], 0)]]
    tensor_vector = _vector(builder, tflite.SubGraphStartTensorsVector, tensors)
    operators = _vector(builder, tflite.SubGraphStartOperatorsVector, [_fully_connected(builder)])
    inputs, outputs, name = _ints(builder, [0]), _ints(builder, [3]), builder.CreateString("main")
    tflite.SubGraphStart(builder)
    tflite.SubGraphAddTensors(builder, tensor_vector)
    tflite.SubGraphAddInputs(builder, inputs)
    tflite.SubGraphAddOutputs(builder, outputs)
    tflite.SubGraphAddOperators(builder, operators)
    tflite.SubGraphAddName(builder, name)
    return tflite.SubGraphEnd(builder)


def _operator_code(builder: flatbuffers.Builder) -> int:
    tflite.OperatorCodeStart(builder)
    # Older readers take the int8 field, newer ones the int32 one: fill both.
    tflite.OperatorCodeAddDeprecatedBuiltinCode(builder, tflite.BuiltinOperator.FULLY_CONNECTED)
    tflite.OperatorCodeAddBuiltinCode(builder, tflite.BuiltinOperator.FULLY_CONNECTED)
    tflite.OperatorCodeAddVersion(builder, 1)
    return tflite.OperatorCodeEnd(builder)


def dense_net(path: Path, seed: int = 11) -> DenseNet:
    """Write one FULLY_CONNECTED op with a fused RELU and seeded float32 weights."""
    rng = np.random.default_rng(seed)
    weights = rng.standard_normal((4, 8)).astype(np.float32) * 0.5
    bias = rng.standard_normal(4).astype(np.float32) * 0.1
    builder = flatbuffers.Builder(1024)
    buffers = [_buffer(builder, None), _buffer(builder, weights), _buffer(builder, bias)]
    buffer_vector = _vector(builder, tflite.ModelStartBuffersVector, buffers)
    codes = _vector(builder, tflite.ModelStartOperatorCodesVector, [_operator_code(builder)])
    subgraphs = _vector(builder, tflite.ModelStartSubgraphsVector, [_subgraph(builder)])
    description = builder.CreateString("dense_net")
    tflite.ModelStart(builder)
    tflite.ModelAddVersion(builder, SCHEMA_VERSION)
    tflite.ModelAddOperatorCodes(builder, codes)
    tflite.ModelAddSubgraphs(builder, subgraphs)
    tflite.ModelAddDescription(builder, description)
    tflite.ModelAddBuffers(builder, buffer_vector)
    builder.Finish(tflite.ModelEnd(builder), file_identifier=b"TFL3")
    path.write_bytes(builder.Output())
    return DenseNet(path, weights, bias)
