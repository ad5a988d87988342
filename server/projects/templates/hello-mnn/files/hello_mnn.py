"""Build a tiny MNN model, save it, load it back and run it."""

import json
import os

import MNN
import numpy as np

F = MNN.expr


def build_model(path: str) -> None:
    rng = np.random.default_rng(0)
    x = F.placeholder([1, 4], F.NCHW)
    x.name = "input"
    w1 = F.const(rng.standard_normal((4, 8)).astype(np.float32).flatten().tolist(), [4, 8])
    w2 = F.const(rng.standard_normal((8, 3)).astype(np.float32).flatten().tolist(), [8, 3])
    hidden = F.relu(F.matmul(x, w1))
    y = F.softmax(F.matmul(hidden, w2))
    y.name = "probs"
    F.save([y], path)


def run_model(path: str) -> list[float]:
    interpreter = MNN.Interpreter(path)
    session = interpreter.createSession({"numThread": 1})
    tensor_in = interpreter.getSessionInput(session, "input")
    data = np.array([[0.5, -1.0, 2.0, 0.25]], dtype=np.float32)
    host = MNN.Tensor([1, 4], MNN.Halide_Type_Float, data, MNN.Tensor_DimensionType_Caffe)
    tensor_in.copyFrom(host)
    interpreter.runSession(session)
    out = interpreter.getSessionOutput(session, "probs")
    result = MNN.Tensor(out.getShape(), MNN.Halide_Type_Float, np.zeros(out.getShape(), np.float32),
                        MNN.Tensor_DimensionType_Caffe)
    out.copyToHostTensor(result)
    return [float(v) for v in np.array(result.getData()).flatten()]


def main() -> None:
    out_dir = os.environ.get("MNNWB_OUTPUT_DIR", "outputs")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "hello.mnn")
    build_model(path)
    probs = run_model(path)
    print("probabilities:", ", ".join(f"{p:.4f}" for p in probs))
    print("MNNWB_METRIC " + json.dumps({"step": 1, "prob_sum": sum(probs)}))


if __name__ == "__main__":
    main()
