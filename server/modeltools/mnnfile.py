"""Read a .mnn file's header facts (inputs, outputs, bizCode, uuid) and its op table straight
from its FlatBuffer.

Loading a model into MNN prepares every weight, which for a mobile-sized model costs as much as
the conversion itself; the inputs, outputs and ops are plain fields of the ``Net`` table, so they
are read here without MNN, and weights are only counted (vector lengths), never decoded. Field
numbers follow MNN's schema (``schema/default/MNN.fbs``): the tests check the result against
what MNN's Interpreter and its JSON dump report.
"""

import mmap
import os
import struct
from pathlib import Path
from typing import Any

from server.modeltools.mnn_optypes import op_type_name

# Net fields
_NET_BIZ_CODE, _NET_OPLISTS, _NET_OUTPUT_NAME, _NET_SOURCE, _NET_TENSOR_NAME, _NET_UUID = 0, 3, 4, 6, 7, 11
# Op fields (a union takes two: its type, then its value)
_OP_INPUTS, _OP_MAIN_TYPE, _OP_MAIN, _OP_NAME, _OP_OUTPUTS, _OP_TYPE = 0, 1, 2, 3, 4, 5
# Input fields
_INPUT_DIMS, _INPUT_DTYPE, _INPUT_FORMAT = 0, 1, 2
# Members of the OpParameter union
_OP_PARAMETER_BATCH_NORM, _OP_PARAMETER_BLOB, _OP_PARAMETER_CONV = 5, 7, 9
_OP_PARAMETER_INPUT, _OP_PARAMETER_SCALE, _OP_PARAMETER_LAYER_NORM = 21, 58, 88
# Weight vectors (field numbers) of the parameter tables that carry weights
_WEIGHT_VECTORS = {
    _OP_PARAMETER_BATCH_NORM: (1, 4),  # slopeData, biasData
    _OP_PARAMETER_BLOB: (7,),  # float32s
    _OP_PARAMETER_SCALE: (1, 2),  # scaleData, biasData
    _OP_PARAMETER_LAYER_NORM: (2, 3),  # gamma, beta
}
# Convolution2D: common, weight, bias, quanParameter, symmetricQuan; IDSTQuan: weightSize
_CONV_COMMON, _CONV_WEIGHT, _CONV_BIAS, _CONV_QUANT, _CONV_SYMMETRIC = 0, 1, 2, 3, 4
_QUANT_WEIGHT_SIZE = 12
# Convolution2DCommon: kernelX, kernelY, group, outputCount, inputCount
_COMMON_KX, _COMMON_KY, _COMMON_GROUP, _COMMON_OUT, _COMMON_IN = 2, 3, 9, 10, 11
_SOURCES = {0: "CAFFE", 1: "TENSORFLOW", 2: "TFLITE", 3: "ONNX", 4: "TORCH"}
_DTYPES = {
    1: "float32",
    2: "float64",
    3: "int32",
    4: "uint8",
    5: "int16",
    6: "int8",
    9: "int64",
    10: "bool",
    19: "float16",
}
_FORMATS = {0: "NCHW", 1: "NHWC", 2: "NC4HW4", 3: "NHWC4", 4: "UNKNOWN"}


class _Table:
    def __init__(self, buf: bytes, pos: int) -> None:
        self.buf, self.pos = buf, pos
        vtable = pos - struct.unpack_from("<i", buf, pos)[0]
        size = struct.unpack_from("<H", buf, vtable)[0]
        count = (size - 4) // 2
        self.fields = struct.unpack_from(f"<{count}H", buf, vtable + 4)

    def _at(self, field: int) -> int | None:
        offset = self.fields[field] if field < len(self.fields) else 0
        return self.pos + offset if offset else None

    def scalar(self, field: int, fmt: str, default: int) -> int:
        at = self._at(field)
        return struct.unpack_from(fmt, self.buf, at)[0] if at is not None else default

    def _target(self, field: int) -> int | None:
        at = self._at(field)
        return at + struct.unpack_from("<I", self.buf, at)[0] if at is not None else None

    def string(self, field: int) -> str | None:
        at = self._target(field)
        if at is None:
            return None
        length = struct.unpack_from("<I", self.buf, at)[0]
        return self.buf[at + 4 : at + 4 + length].decode("utf-8", "replace")

    def _vector(self, field: int) -> tuple[int, int]:
        at = self._target(field)
        return (0, 0) if at is None else (struct.unpack_from("<I", self.buf, at)[0], at + 4)

    def length(self, field: int) -> int:
        return self._vector(field)[0]

    def ints(self, field: int) -> list[int]:
        length, start = self._vector(field)
        return list(struct.unpack_from(f"<{length}i", self.buf, start)) if length else []

    def tables(self, field: int) -> list["_Table"]:
        length, start = self._vector(field)
        items = []
        for index in range(length):
            at = start + 4 * index
            items.append(_Table(self.buf, at + struct.unpack_from("<I", self.buf, at)[0]))
        return items

    def strings(self, field: int) -> list[str]:
        length, start = self._vector(field)
        names = []
        for index in range(length):
            at = start + 4 * index
            target = at + struct.unpack_from("<I", self.buf, at)[0]
            size = struct.unpack_from("<I", self.buf, target)[0]
            names.append(self.buf[target + 4 : target + 4 + size].decode("utf-8", "replace"))
        return names

    def table(self, field: int) -> "_Table | None":
        at = self._target(field)
        return _Table(self.buf, at) if at is not None else None


def _input(op: _Table, tensor_names: list[str]) -> dict[str, Any] | None:
    if op.scalar(_OP_MAIN_TYPE, "<B", 0) != _OP_PARAMETER_INPUT:
        return None
    main = op.table(_OP_MAIN)
    outputs = op.ints(_OP_OUTPUTS)
    if main is None or not outputs:
        return None
    return {
        "name": tensor_names[outputs[0]],
        "shape": main.ints(_INPUT_DIMS),
        "dtype": _DTYPES.get(main.scalar(_INPUT_DTYPE, "<i", 1), "unknown"),
        "layout": _FORMATS.get(main.scalar(_INPUT_FORMAT, "<b", 2), "UNKNOWN"),
    }


def _conv_params(main: _Table) -> int:
    weights = main.length(_CONV_WEIGHT)
    quant = main.table(_CONV_QUANT)
    if not weights and quant is not None:
        weights = quant.scalar(_QUANT_WEIGHT_SIZE, "<I", 0)
    common = main.table(_CONV_COMMON)
    if not weights and common is not None:
        group = max(1, common.scalar(_COMMON_GROUP, "<i", 1))
        weights = (
            common.scalar(_COMMON_OUT, "<i", 0)
            * common.scalar(_COMMON_IN, "<i", 0)
            // group
            * common.scalar(_COMMON_KX, "<i", 1)
            * common.scalar(_COMMON_KY, "<i", 1)
        )
    return weights + main.length(_CONV_BIAS)


def _params(op: _Table) -> int:
    """Weights an op holds: counted from vector lengths, never read."""
    kind = op.scalar(_OP_MAIN_TYPE, "<B", 0)
    main = op.table(_OP_MAIN) if kind else None
    if main is None:
        return 0
    if kind == _OP_PARAMETER_CONV:
        return _conv_params(main)
    return sum(main.length(field) for field in _WEIGHT_VECTORS.get(kind, ()))


def _quantized(op: _Table) -> bool:
    """A convolution whose weights are stored quantized (int8 or weight-only)."""
    main = op.table(_OP_MAIN) if op.scalar(_OP_MAIN_TYPE, "<B", 0) == _OP_PARAMETER_CONV else None
    if main is None:
        return False
    return main.table(_CONV_QUANT) is not None or main.table(_CONV_SYMMETRIC) is not None


def _op(op: _Table, names: list[str]) -> dict[str, Any]:
    return {
        "name": op.string(_OP_NAME) or "",
        "type": op_type_name(op.scalar(_OP_TYPE, "<i", 0)),
        "inputs": [names[i] for i in op.ints(_OP_INPUTS) if 0 <= i < len(names)],
        "outputs": [names[i] for i in op.ints(_OP_OUTPUTS) if 0 <= i < len(names)],
        "params": _params(op),
        "quantized": _quantized(op),
    }


def _mapped(path: Path) -> bytes:
    """The file's bytes, mapped rather than read: only the header and op table are touched, not
    the weights (tens of MB in a mid-sized model)."""
    with path.open("rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return b""
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)  # type: ignore[return-value]


def _net(path: Path) -> tuple[_Table, list[str], list[_Table]]:
    buf = _mapped(path)
    try:
        net = _Table(buf, struct.unpack_from("<I", buf, 0)[0])
        return net, net.strings(_NET_TENSOR_NAME), net.tables(_NET_OPLISTS)
    except (struct.error, IndexError) as exc:
        raise ValueError(f"{path.name}: unreadable MNN header ({exc})") from None


def read_header(path: Path) -> dict[str, Any]:
    """Inputs (name, shape, dtype, layout), output names, bizCode and uuid of a .mnn file.

    Raises ``ValueError`` when the file is not a well-formed MNN FlatBuffer.
    """
    return read_model(path, with_ops=False)


def read_model(path: Path, with_ops: bool = True) -> dict[str, Any]:
    """``read_header``'s facts plus, with ``with_ops``, the op table (name, type, input and
    output tensor names, weight count of each op) and the framework the model came from."""
    net, names, ops = _net(path)
    try:
        inputs = [i for op in ops if (i := _input(op, names)) is not None]
        model: dict[str, Any] = {
            "inputs": inputs,
            "outputs": [{"name": name} for name in net.strings(_NET_OUTPUT_NAME)],
            "biz_code": net.string(_NET_BIZ_CODE),
            "uuid": net.string(_NET_UUID),
        }
        if with_ops:
            model["ops"] = [_op(op, names) for op in ops]
            model["source_format"] = _SOURCES.get(net.scalar(_NET_SOURCE, "<b", 0))
    except (struct.error, IndexError) as exc:
        raise ValueError(f"{path.name}: unreadable MNN header ({exc})") from None
    return model


# IDSTQuan (a convolution's quanParameter): type, scaleIn; type 3 holds float16 weights
_QUANT_TYPE, _QUANT_SCALE_IN, _QUANT_FP16 = 2, 5, 3


def weights_kind(path: Path) -> str:
    """How a model's convolutions hold their weights: ``int8`` (full int8: weights and features
    quantized, a ``scaleIn`` on the convolution), ``weight-quant`` (weights stored quantized,
    computed in float), ``fp16`` (weights stored as float16) or ``fp32``; measured on MNN 3.6.1's
    quantizer and converter (``--fp16``, ``--weightQuantBits``)."""
    _, _, ops = _net(path)
    kinds = set()
    try:
        for op in ops:
            main = op.table(_OP_MAIN) if op.scalar(_OP_MAIN_TYPE, "<B", 0) == _OP_PARAMETER_CONV else None
            quant = main.table(_CONV_QUANT) if main is not None else None
            if quant is None:
                continue
            if quant.scalar(_QUANT_SCALE_IN, "<f", 0) != 0:
                kinds.add("int8")
            elif quant.scalar(_QUANT_TYPE, "<i", 0) == _QUANT_FP16:
                kinds.add("fp16")
            else:
                kinds.add("weight-quant")
    except (struct.error, IndexError) as exc:
        raise ValueError(f"{path.name}: unreadable MNN model ({exc})") from None
    return next((k for k in ("int8", "weight-quant", "fp16") if k in kinds), "fp32")
