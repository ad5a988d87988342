"""Read a .mnn file's header facts (inputs, outputs, bizCode, uuid) straight from its FlatBuffer.

Loading a model into MNN prepares every weight, which for a mobile-sized model costs as much as
the conversion itself; the inputs and outputs are plain fields of the ``Net`` table, so they are
read here without MNN. Field numbers follow MNN's schema (``schema/default/MNN.fbs``): the tests
check the result against what MNN's Interpreter reports.
"""

import struct
from pathlib import Path
from typing import Any

# Net fields
_NET_BIZ_CODE, _NET_OPLISTS, _NET_OUTPUT_NAME, _NET_TENSOR_NAME, _NET_UUID = 0, 3, 4, 7, 11
# Op fields (a union takes two: its type, then its value)
_OP_MAIN_TYPE, _OP_MAIN, _OP_OUTPUTS = 1, 2, 4
# Input fields
_INPUT_DIMS, _INPUT_DTYPE, _INPUT_FORMAT = 0, 1, 2
_OP_PARAMETER_INPUT = 21
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


def read_header(path: Path) -> dict[str, Any]:
    """Inputs (name, shape, dtype, layout), output names, bizCode and uuid of a .mnn file.

    Raises ``ValueError`` when the file is not a well-formed MNN FlatBuffer.
    """
    buf = path.read_bytes()
    try:
        net = _Table(buf, struct.unpack_from("<I", buf, 0)[0])
        names = net.strings(_NET_TENSOR_NAME)
        inputs = [i for op in net.tables(_NET_OPLISTS) if (i := _input(op, names)) is not None]
    except (struct.error, IndexError) as exc:
        raise ValueError(f"{path.name}: unreadable MNN header ({exc})") from None
    return {
        "inputs": inputs,
        "outputs": [{"name": name} for name in net.strings(_NET_OUTPUT_NAME)],
        "biz_code": net.string(_NET_BIZ_CODE),
        "uuid": net.string(_NET_UUID),
    }
