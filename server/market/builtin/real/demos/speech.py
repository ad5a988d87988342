"""Where is someone speaking? Silero VAD, ``python demo.py [--model FILE.mnn] [AUDIO.npy]``.

The audio (float32 samples in [-1, 1] at 16 kHz, mono, in a .npy file) goes through the model
in chunks of 512 samples (32 ms), each with the 64 samples before it, the model's state carried
from chunk to chunk, as silero-vad does. A segment starts at a chunk whose speech probability
reaches 0.5 and ends after 100 ms below 0.35; segments shorter than 250 ms are dropped. The
answer is how many segments; their times follow in seconds.
"""

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import demo_common  # noqa: E402

RATE, CHUNK, CONTEXT = 16000, 512, 64
START, END = 0.5, 0.35
MIN_SILENCE_S, MIN_SPEECH_S = 0.1, 0.25


def probabilities(model: tuple, audio: np.ndarray) -> np.ndarray:
    net, _ = model
    state = np.zeros((2, 1, 128), dtype=np.float32)
    rate = demo_common.tensor(np.array(RATE, dtype=np.int32), dtype=demo_common.MNN.expr.int)
    padded = np.concatenate([np.zeros(CONTEXT, np.float32), audio.astype(np.float32)])
    found = []
    for start in range(CONTEXT, len(padded) - CHUNK + 1, CHUNK):
        window = padded[start - CONTEXT:start + CHUNK][None]
        speech, state = demo_common.forward(
            net, [demo_common.tensor(window), demo_common.tensor(state), rate])
        found.append(float(speech.reshape(-1)[0]))
    return np.array(found)


def segments(speech: np.ndarray) -> list[tuple[float, float]]:
    step = CHUNK / RATE
    found, begin, quiet = [], None, 0
    for index, value in enumerate(speech):
        if begin is None and value >= START:
            begin, quiet = index, 0
        elif begin is not None:
            quiet = quiet + 1 if value < END else 0
            if quiet * step >= MIN_SILENCE_S:
                found.append((begin * step, (index - quiet + 1) * step))
                begin = None
    if begin is not None:
        found.append((begin * step, len(speech) * step))
    return [(a, b) for a, b in found if b - a >= MIN_SPEECH_S]


def answer(model: tuple, audio: np.ndarray) -> demo_common.Answer:
    found = segments(probabilities(model, audio))
    times = " ".join(f"{a:.2f}-{b:.2f}s" for a, b in found)
    return f"{len(found)} speech segment{'' if len(found) == 1 else 's'}", times


if __name__ == "__main__":
    sys.exit(demo_common.main(HERE, demo_common.load, answer, sys.argv[1:]))
