"""The model spec and the preprocessing and decoding it drives (``device_bridge/runtime``), on
real photographs from a package."""

import io
import wave
from pathlib import Path

import numpy as np
import pytest

from device_bridge.runtime import decode, preprocess, spec
from device_bridge.runtime.spec import InputSpec, OutputSpec, SpecError
from tests.fakes.photos import CAMERA, CAT, ROCKET, photo

DETECTOR = """
format = 1
[[inputs]]
name = "image"
shape = [1, 3, -1, -1]
default_shape = [1, 3, 640, 640]
kind = "image"
layout = "NCHW"
resize = "letterbox"
scale = 0.00392156862745098
mean = [0.485, 0.456, 0.406]
std = [0.229, 0.224, 0.225]

[[outputs]]
name = "boxes"
kind = "boxes"
labels = ["cat", "rocket"]
threshold = 0.5
"""


def test_a_spec_round_trips_and_gives_its_defaults() -> None:
    parsed = spec.parse(DETECTOR)
    assert spec.parse(spec.dumps(parsed)) == parsed
    assert parsed.default_shapes() == {"image": [1, 3, 640, 640]}
    assert parsed.inputs[0].dynamic == [2, 3]
    assert spec.sidecar(Path("models/det.onnx")) == Path("models/det.onnx.model.toml")


@pytest.mark.parametrize(("text", "where", "reason"), [
    ("[[inputs]]\nname='x'\nshape=[1,0]", "inputs[0].shape[1]", "not a dim"),
    ("[[inputs]]\nname='x'\nshape=[1,-1]\ndefault_shape=[1]", "inputs[0].default_shape", "1 dims"),
    ("[[inputs]]\nname='x'\nshape=[1,3]\ndefault_shape=[1,4]", "inputs[0].default_shape[1]",
     "contradicts"),
    ("[[inputs]]\nname='x'\nshape=[1,3,8,8]\nkind='image'\nlayout='NCHW'\nmean=[1,2]",
     "inputs[0].mean", "2 values for 3 channel"),
    ("[[inputs]]\nname='x'\nshape=[1,1,8,8]\nkind='image'\nlayout='NCHW'", "inputs[0].color",
     "the input has 1"),
    ("[[inputs]]\nname='x'\nshape=[1,3,8,8]\nkind='image'", "inputs[0].layout", "NCHW or NHWC"),
    ("[[inputs]]\nname='x'\nkind='audio'\nshape=[1,16000]", "inputs[0].sample_rate", "sample rate"),
    ("[[inputs]]\nname='x'\nstd=[0]", "inputs[0].std", "divides by zero"),
    ("[[inputs]]\nname='x'\n[[inputs]]\nname='x'", "inputs[1].name", "declared twice"),
    ("[[outputs]]\nname='y'\nlabels_file='../secrets'", "outputs[0].labels_file", "relative path"),
    ("[[outputs]]\nname='y'\nkind='poem'", "outputs[0].kind", "not one of"),
    ("[[outputs]]\nname='y'\ncolour='red'", "outputs[0].colour", "unknown field"),
    ("format = 2", "format", "format 1"),
    ("inputs = 3", "inputs", "list"),
    ("[[inputs", "spec", "not valid TOML"),
])
def test_a_bad_spec_names_its_first_bad_field(text: str, where: str, reason: str) -> None:
    with pytest.raises(SpecError) as raised:
        spec.parse(text)
    assert raised.value.where == where and reason in raised.value.reason, raised.value


def _image(**fields) -> InputSpec:
    base = {"name": "image", "shape": [1, 3, -1, -1], "kind": "image", "layout": "NCHW"}
    return InputSpec(**{**base, **fields})


@pytest.mark.parametrize("how", ["stretch", "letterbox", "center_crop"])
def test_a_photo_becomes_the_input_tensor_the_spec_describes(how: str) -> None:
    image = _image(resize=how, scale=1 / 255, mean=[0.5], std=[0.25])
    tensor, frame = preprocess.tensor(image, [1, 3, 224, 320], photo(ROCKET))
    assert tensor.shape == (1, 3, 224, 320) and tensor.dtype == np.float32
    assert (frame.width, frame.height) == (640, 427)
    # The same pixels by hand: RGB order, scaled, normalised, channels first.
    pixels = preprocess.decode_image(photo(ROCKET))
    fitted, _ = preprocess.fit(pixels, 320, 224, how)
    expected = ((fitted.astype(np.float32) / 255 - 0.5) / 0.25).transpose(2, 0, 1)
    assert np.allclose(tensor[0], expected, atol=1e-5)
    if how == "letterbox":  # aspect kept: 640x427 → 320x213, grey bands above and below
        assert (frame.scale_x, frame.pad_x, frame.pad_y) == (0.5, 0, 5)
        assert np.allclose(tensor[0, :, 0, :], (114 / 255 - 0.5) / 0.25, atol=1e-5)
        assert frame.to_file(320 * 0.5 + 0, 5) == (320.0, 0.0)


def test_colour_order_and_layout_follow_the_spec() -> None:
    rgb, _ = preprocess.tensor(_image(layout="NHWC", shape=[1, -1, -1, 3]), [1, 64, 64, 3], photo(CAT))
    bgr, _ = preprocess.tensor(_image(layout="NHWC", shape=[1, -1, -1, 3], color="BGR"), [1, 64, 64, 3],
                               photo(CAT))
    assert rgb.shape == (1, 64, 64, 3) and np.array_equal(rgb[..., ::-1], bgr)
    grey, _ = preprocess.tensor(_image(shape=[1, 1, -1, -1], color="GRAY"), [1, 1, 32, 32], photo(CAMERA))
    assert grey.shape == (1, 1, 32, 32) and grey.max() > 100  # raw pixel values: no scale given


def test_bad_files_are_named_with_their_reason(tmp_path: Path) -> None:
    truncated = tmp_path / "half.jpg"
    truncated.write_bytes(photo(ROCKET).read_bytes()[:20000])
    text = tmp_path / "notes.png"
    text.write_text("not an image")
    empty = tmp_path / "empty.bmp"
    empty.write_bytes(b"")
    image = _image()
    for path, reason in ((truncated, "cannot be decoded"), (text, "not an image"), (empty, "empty file")):
        with pytest.raises(preprocess.InputFileError) as raised:
            preprocess.tensor(image, [1, 3, 8, 8], path)
        assert raised.value.path == path and reason in raised.value.reason
    with pytest.raises(preprocess.InputFileError, match="declared tensor"):
        preprocess.tensor(InputSpec("x", [1, 3, 8, 8]), [1, 3, 8, 8], photo(CAT))


def _wav(path: Path, rate: int, samples: np.ndarray) -> Path:
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes((samples * 32767).astype("<i2").tobytes())
    return path


def test_audio_and_arrays(tmp_path: Path) -> None:
    tone = np.sin(np.linspace(0, 2 * np.pi * 440, 8000)).astype(np.float32)
    audio = InputSpec("wave", [1, 16000], kind="audio", sample_rate=8000)
    value, _ = preprocess.tensor(audio, [1, 16000], _wav(tmp_path / "tone.wav", 8000, tone))
    assert value.shape == (1, 16000) and np.allclose(value[0, :8000], tone, atol=1e-3)
    assert not value[0, 8000:].any()  # shorter audio is padded with silence
    with pytest.raises(preprocess.InputFileError, match="16000 Hz, the input takes 8000"):
        preprocess.tensor(audio, [1, 16000], _wav(tmp_path / "fast.wav", 16000, tone))
    array = InputSpec("x", [2, 3])
    np.save(tmp_path / "x.npy", np.arange(6, dtype=np.float32))
    assert preprocess.tensor(array, [2, 3], tmp_path / "x.npy")[0].shape == (2, 3)
    np.savez(tmp_path / "pair.npz", x=np.ones(6), y=np.zeros(6))
    assert preprocess.tensor(array, [2, 3], tmp_path / "pair.npz")[0].sum() == 6
    with pytest.raises(preprocess.InputFileError, match="holds shape"):
        preprocess.tensor(InputSpec("x", [4]), [4], tmp_path / "x.npy")
    buffer = io.BytesIO()
    np.save(buffer, np.array([object()], dtype=object), allow_pickle=True)
    (tmp_path / "pickled.npy").write_bytes(buffer.getvalue())
    with pytest.raises(preprocess.InputFileError, match="not a numpy array file"):
        preprocess.tensor(InputSpec("x", [1]), [1], tmp_path / "pickled.npy")


def test_outputs_are_read_by_their_kind() -> None:
    logits = np.array([[0.1, 3.0, 1.0]], dtype=np.float32)
    top = decode.decode(OutputSpec("p", kind="logits"), logits, labels=["a", "b", "c"])["top"]
    assert [t["label"] for t in top] == ["b", "c", "a"] and abs(sum(t["score"] for t in top) - 1) < 1e-6
    frame = preprocess.Frame(640, 427, 0.5, 0.5, 0, 5)
    rows = np.array([[[10, 15, 110, 65, 0.9, 1], [0, 0, 5, 5, 0.1, 0]]], dtype=np.float32)
    found = decode.decode(OutputSpec("b", kind="boxes", threshold=0.5), rows, labels=["cat", "rocket"],
                          frame=frame)
    assert found["boxes"] == [{"box": [20.0, 20.0, 220.0, 120.0], "score": pytest.approx(0.9),
                               "class": 1, "label": "rocket"}]
    steps = np.zeros((1, 6, 4), dtype=np.float32)  # blank, "h", "h", blank, "i", "i"
    for step, index in enumerate([0, 1, 1, 0, 2, 2]):
        steps[0, step, index] = 1
    assert decode.decode(OutputSpec("t", kind="text"), steps, characters=["h", "i", "!"])["text"] == "hi"
    planes = np.zeros((1, 2, 4, 4), dtype=np.float32)
    planes[0, 1, :2] = 1
    masked = decode.decode(OutputSpec("m", kind="mask"), planes, labels=["bg", "fg"])
    assert masked["classes"] == [{"index": 0, "label": "bg", "pixels": 8},
                                 {"index": 1, "label": "fg", "pixels": 8}]
    with pytest.raises(decode.DecodeError, match="one score per class"):
        decode.decode(OutputSpec("p", kind="logits"), np.zeros((2, 3)))
