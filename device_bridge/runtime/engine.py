"""One MNN model as a callable: arrays in, arrays out, resized to the arrays' shapes. The same on
the server's workers and on the device agent (MNN's Python package, nothing else).

Values cross MNN through *float* host tensors (an int8 host tensor double-frees inside MNN
3.6.1), in the session tensor's own dimension order.
"""

from pathlib import Path
from typing import Any

import numpy as np

from device_bridge import backends


class ModelError(RuntimeError):
    pass


class Session:
    def __init__(
        self, path: str | Path, threads: int = 1, backend: str = "CPU", precision: str = "normal"
    ) -> None:
        import MNN

        self._mnn = MNN
        try:
            self.net = MNN.Interpreter(str(path))
        except Exception as exc:
            raise ModelError(f"{Path(path).name}: MNN cannot load this model ({exc})") from None
        if backend == "CPU" and precision == "normal":
            self.session = self.net.createSession({"numThread": threads})
        else:
            self.session = self.net.createSession(backends.session_config(backend, threads, precision))
            got = backends.used(self.net, self.session, backend)
            if got != backend:  # MNN would run it on the CPU without a word
                why = backends.platform_reason(backend) or backends.unavailable(backend, MNN.version())
                raise ModelError(f"{Path(path).name}: {backend} cannot run here: {why}")
        self.path = Path(path)
        self._shapes = {
            name: tuple(t.getShape()) for name, t in self.net.getSessionInputAll(self.session).items()
        }

    @property
    def input_shapes(self) -> dict[str, list[int]]:
        """Input name → shape as the session holds it (``-1`` or the last size for a dynamic dim)."""
        return {name: list(shape) for name, shape in self._shapes.items()}

    def memory_mb(self) -> float:
        """The session's memory in MB as MNN counts it (``getSessionInfo(session, 0)``: its
        weights and the buffers of its current shapes)."""
        return float(self.net.getSessionInfo(self.session, 0))

    def _layout(self, tensor: Any) -> Any:
        mnn = self._mnn
        tf = mnn.Tensor_DimensionType_Tensorflow
        return tf if tensor.getDimensionType() == tf else mnn.Tensor_DimensionType_Caffe

    def run(self, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        mnn, net = self._mnn, self.net
        inputs = net.getSessionInputAll(self.session)
        missing = sorted(set(inputs) - set(feeds))
        if missing:
            raise ModelError(f"{self.path.name} needs inputs {missing}")
        if any(self._shapes[name] != feeds[name].shape for name in inputs):
            for name, tensor in inputs.items():
                net.resizeTensor(tensor, feeds[name].shape)
            net.resizeSession(self.session)
            self._shapes = {name: feeds[name].shape for name in inputs}
            inputs = net.getSessionInputAll(self.session)
        for name, tensor in inputs.items():
            value = feeds[name]
            kind = mnn.Halide_Type_Int if np.issubdtype(value.dtype, np.integer) else mnn.Halide_Type_Float
            host = mnn.Tensor(
                value.shape,
                kind,
                value.astype(np.int32 if kind == mnn.Halide_Type_Int else np.float32),
                self._layout(tensor),
            )
            tensor.copyFrom(host)
        net.runSession(self.session)
        out = {}
        for name, tensor in net.getSessionOutputAll(self.session).items():
            shape = tuple(tensor.getShape())
            host = mnn.Tensor(shape, mnn.Halide_Type_Float, np.zeros(shape, np.float32), self._layout(tensor))
            tensor.copyToHostTensor(host)
            out[name] = np.array(host.getNumpyData(), dtype=np.float32, copy=True).reshape(shape)
        return out
