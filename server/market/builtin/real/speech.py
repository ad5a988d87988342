"""Voice activity: Silero VAD (16 kHz, ONNX opset 15) as the silero-vad wheel ships it."""

import numpy as np

from server.market.builtin.real import inputs
from server.market.builtin.real.algorithm import RealAlgorithm, Sample, Upstream
from server.market.builtin.real.cache import Pin

PIN = Pin("silero-vad", "6.2.3")
RATE = 16000
PAD_S = 1.0


def _segments(count: int) -> str:
    return f"{count} speech segment{'' if count == 1 else 's'}"


def _silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * RATE), dtype=np.float32)


def utterances(count: int, gap_s: float = 1.5) -> np.ndarray:
    """``count`` copies of the recording, ``gap_s`` of digital silence between them and
    ``PAD_S`` before and after."""
    speech, rate = inputs.speech()
    assert rate == RATE, f"the recording is at {rate} Hz"
    parts = [_silence(PAD_S)]
    for index in range(count):
        parts += [speech, _silence(gap_s if index < count - 1 else PAD_S)]
    return np.concatenate(parts)


def noise(seconds: float = 3.0) -> np.ndarray:
    """Quiet white noise (about -50 dBFS), seeded: no speech by construction."""
    return (np.random.default_rng(0).normal(0, 0.003, int(seconds * RATE))).astype(np.float32)


def samples() -> list[Sample]:
    return [Sample("speech-padded", utterances(1), _segments(1)),
            Sample("speech-twice", utterances(2), _segments(2)),
            Sample("silence", _silence(3.0), _segments(0))]


def evaluation() -> list[Sample]:
    return [*samples(), Sample("speech-thrice", utterances(3, gap_s=1.0), _segments(3)),
            Sample("noise", noise(), _segments(0))]


ALGORITHM = RealAlgorithm(
    id="voice-activity", name="Voice activity detection", task="audio-classification",
    summary="16 kHz speech → where someone is speaking, as segments in seconds (Silero VAD)",
    about="Silero VAD (Silero Team, MIT) as the `silero-vad` 6.2.3 wheel on PyPI ships it: "
          "`silero_vad/data/silero_vad_16k_op15.onnx`, a model that carries its LSTM state "
          "from one 32 ms chunk to the next (its `If` on the sample rate converts to an MNN "
          "sub-graph). The speech is CMU ARCTIC's `arctic_a0007` (speaker BDL, 16 kHz; "
          "Carnegie Mellon University, free for any use, its license in `LICENSE-cmu-arctic`) "
          "from the `pysptk` 1.0.1 sdist.",
    license="MIT", authors=["Silero Team"],
    model=Upstream(PIN, "silero_vad/data/silero_vad_16k_op15.onnx"),
    licenses={"LICENSE": Upstream(PIN, "silero_vad-6.2.3.dist-info/licenses/LICENSE"),
              "LICENSE-cmu-arctic": Upstream(inputs.PYSPTK, inputs.SPEECH_LICENSE)},
    spec={
        "inputs": [
            {"name": "input", "shape": [1, -1], "default_shape": [1, 576], "kind": "audio",
             "layout": "NC", "sample_rate": RATE,
             "description": "512 new samples after the 64 before them, in [-1, 1]"},
            {"name": "state", "shape": [2, -1, 128], "default_shape": [2, 1, 128],
             "description": "the LSTM state: zeros first, then the last chunk's stateN"},
            {"name": "sr", "shape": [], "dtype": "int32", "description": "the sample rate, 16000"}],
        "outputs": [
            {"name": "output", "shape": [1, 1], "kind": "probabilities",
             "description": "the probability that the chunk is speech"},
            {"name": "stateN", "shape": [2, 1, 128], "description": "the state for the next chunk"}],
    },
    demo="speech", samples=samples, evaluation=evaluation,
    credits="CMU ARCTIC `arctic_a0007` (Carnegie Mellon University, free for any use with its "
            "notice kept: `LICENSE-cmu-arctic`), from the `pysptk` 1.0.1 sdist, padded with "
            "silence by the build.",
    eval_set="speech segments counted in 5 clips made by construction from CMU ARCTIC "
             "arctic_a0007 (4 s) and digital silence: the recording once, twice (1.5 s "
             "apart) and three times (1 s apart) (1, 2, 3 segments), 3 s of silence and 3 s of "
             "quiet white noise (none)",
)
