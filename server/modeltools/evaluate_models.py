"""The models evaluate runs: each opened once into a function from one preprocessed tensor to its
output, by the runtime its plan names (MNN, ONNX Runtime, or a TFLite interpreter where one is
installed); and what kind of model each is, for the result's rows (docs/datasets.md)."""

import importlib
from collections.abc import Callable

import numpy as np

from server.modeltools import evaluation, mnnfile, shapes
from server.modeltools.errors import ToolFailed
from server.modeltools.evaluation import Plan
from server.modeltools.schemas import EvaluateArgs

Runner = Callable[[np.ndarray], np.ndarray]


def _mnn(plan: Plan, args: EvaluateArgs) -> Runner:
    import MNN

    from server.modeltools import tensors

    loaded = tensors.load_on(plan.path, args)
    assert plan.shape is not None
    name = plan.input.name
    tensors.feed(loaded, {name: np.zeros(plan.shape, np.float32)})  # resized once, for every sample
    outputs = loaded.outputs()
    if plan.output.name not in outputs:
        raise ToolFailed(f"{plan.path.name} has no output {plan.output.name!r} (its outputs: "
                         f"{', '.join(sorted(outputs))}): fix the output's name in its spec",
                         "bad_model_spec")
    net, session = loaded.net, loaded.session
    target, output = loaded.inputs()[name], outputs[plan.output.name]
    layout, out_layout = (tensors._host_layout(target), tensors._host_layout(output))
    integer = loaded.dtypes.get(name, "float32").startswith("int")
    kind, dtype = (MNN.Halide_Type_Int, np.int32) if integer else (MNN.Halide_Type_Float, np.float32)
    in_shape = tuple(plan.shape)
    out_shape = tuple(output.getShape())

    def run(value: np.ndarray) -> np.ndarray:
        host = MNN.Tensor(in_shape, kind, value.astype(dtype, copy=False), layout)
        target.copyFrom(host)
        net.runSession(session)
        result = MNN.Tensor(out_shape, MNN.Halide_Type_Float, np.zeros(out_shape, np.float32), out_layout)
        output.copyToHostTensor(result)
        return np.array(result.getNumpyData(), dtype=np.float32, copy=True).reshape(out_shape)

    return run


def _onnxruntime(plan: Plan, args: EvaluateArgs) -> Runner:
    import onnxruntime as ort

    from server.modeltools.compare import _ORT_TYPES

    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    try:
        session = ort.InferenceSession(str(plan.path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise ToolFailed(f"{plan.path.name}: ONNX Runtime cannot load this model ({exc})") from None
    names = [o.name for o in session.get_outputs()]
    if plan.output.name not in names:
        raise ToolFailed(f"{plan.path.name} has no output {plan.output.name!r} (its outputs: "
                         f"{', '.join(names)}): fix the output's name in its spec", "bad_model_spec")
    wanted = session.get_inputs()[0]
    dtype = _ORT_TYPES.get(wanted.type, np.float32)
    feed_name, fetch = wanted.name, [plan.output.name]

    def run(value: np.ndarray) -> np.ndarray:
        return np.asarray(session.run(fetch, {feed_name: value.astype(dtype, copy=False)})[0])

    return run


def _tflite(plan: Plan, args: EvaluateArgs) -> Runner:
    found = evaluation.tflite_module()
    if found is None:
        raise ToolFailed(f"{plan.path.name}: no TFLite interpreter is installed here",
                         "runtime_unavailable")
    module = importlib.import_module(found)
    interpreter_class = getattr(module, "Interpreter", None) or module.lite.Interpreter
    interpreter = interpreter_class(model_path=str(plan.path), num_threads=args.threads)
    details = interpreter.get_input_details()
    if len(details) != 1:
        raise ToolFailed(f"{plan.path.name} has {len(details)} inputs; evaluate feeds one", "too_many_inputs")
    declared = [shapes.from_dims(details[0]["name"], details[0].get("shape_signature", details[0]["shape"]))]
    if plan.shape is None:
        default = plan.input.run_shape()
        given = {declared[0].name: default} if default is not None else None
        try:
            plan.shape = shapes.resolve(declared, given)[declared[0].name]
        except shapes.ShapeError as exc:
            raise ToolFailed(f"{plan.path.name}: {exc.detail}", exc.code, **exc.where) from None
    interpreter.resize_tensor_input(details[0]["index"], plan.shape)
    interpreter.allocate_tensors()
    outputs = {o["name"]: o["index"] for o in interpreter.get_output_details()}
    if plan.output.name not in outputs:
        raise ToolFailed(f"{plan.path.name} has no output {plan.output.name!r} (its outputs: "
                         f"{', '.join(outputs)}): fix the output's name in its spec", "bad_model_spec")
    index, out, dtype = details[0]["index"], outputs[plan.output.name], details[0]["dtype"]

    def run(value: np.ndarray) -> np.ndarray:
        interpreter.set_tensor(index, value.astype(dtype, copy=False))
        interpreter.invoke()
        return np.array(interpreter.get_tensor(out), copy=True)

    return run


OPENERS = {"mnn": _mnn, "onnxruntime": _onnxruntime, "tflite": _tflite}


def describe(plan: Plan) -> str:
    """What kind of model this is: ``source`` (run by ONNX Runtime or TFLite), or how an MNN
    model holds its weights (``mnnfile.weights_kind``: fp32, fp16, weight-quant, int8)."""
    if plan.runtime != "mnn":
        return "source"
    try:
        return mnnfile.weights_kind(plan.path)
    except (OSError, ValueError):
        return "mnn"
