"""Generated sensor signals for the built-in signal algorithms (seeded, so builds repeat)."""

import numpy as np

WINDOW = 64
RATE_HZ = 32.0
COMPONENTS = 8
ACTIVITIES = ("still", "walking", "running")
# (gait frequency range in Hz, amplitude range in g) per activity; still has no gait.
GAIT = {"still": ((0.0, 0.0), (0.0, 0.0)), "walking": ((1.4, 2.2), (0.2, 0.6)),
        "running": ((2.4, 3.4), (0.9, 1.8))}


def _gravity(rng: np.random.Generator, count: int) -> np.ndarray:
    """A unit gravity vector per window, tilted from z by up to ~35 degrees."""
    tilt = rng.normal(0.0, 0.35, size=(count, 3)) + np.array([0.0, 0.0, 1.0])
    result: np.ndarray = tilt / np.linalg.norm(tilt, axis=1, keepdims=True)
    return result


def activity_windows(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``count`` windows [3, WINDOW] of acceleration in g and their activity index."""
    t = np.arange(WINDOW) / RATE_HZ
    labels = rng.integers(0, len(ACTIVITIES), size=count)
    windows = np.empty((count, 3, WINDOW), dtype=np.float32)
    gravity = _gravity(rng, count)
    for index, label in enumerate(labels):
        (f_low, f_high), (a_low, a_high) = GAIT[ACTIVITIES[label]]
        freq, amp = rng.uniform(f_low, f_high), rng.uniform(a_low, a_high)
        phase = rng.uniform(0, 2 * np.pi, size=(3, 1))
        share = rng.uniform(0.3, 1.0, size=(3, 1))
        gait = amp * share * np.sin(2 * np.pi * freq * t + phase)
        noise = rng.normal(0.0, 0.04, size=(3, WINDOW))
        windows[index] = gravity[index][:, None] + gait + noise
    return windows, labels


def vibration_windows(count: int, rng: np.random.Generator) -> np.ndarray:
    """Healthy machine vibration: a shaft tone, its second harmonic and sensor noise."""
    t = np.arange(WINDOW) / WINDOW
    shaft = rng.uniform(4.9, 5.1, size=(count, 1))
    phase = rng.uniform(0, 2 * np.pi, size=(count, 2))
    amp = rng.uniform(0.8, 1.2, size=(count, 1))
    wave = amp * (np.sin(2 * np.pi * shaft * t + phase[:, :1])
                  + 0.3 * np.sin(4 * np.pi * shaft * t + phase[:, 1:]))
    result: np.ndarray = (wave + rng.normal(0.0, 0.05, size=(count, WINDOW))).astype(np.float32)
    return result


def faulty_windows(count: int, rng: np.random.Generator) -> np.ndarray:
    """Faults in equal shares: impacts, a bearing tone and a loose (clipped) mount."""
    windows = vibration_windows(count, rng)
    t = np.arange(WINDOW) / WINDOW
    for index in range(count):
        kind = index % 3
        if kind == 0:
            spots = rng.choice(WINDOW, size=2, replace=False)
            windows[index, spots] += rng.choice([-1.0, 1.0], size=2) * rng.uniform(1.0, 2.0, 2)
        elif kind == 1:
            tone = rng.uniform(18.0, 26.0)
            windows[index] += 0.35 * np.sin(2 * np.pi * tone * t + rng.uniform(0, 2 * np.pi))
        else:
            limit = rng.uniform(0.45, 0.65)
            windows[index] = np.clip(windows[index], -limit, limit)
    return windows
