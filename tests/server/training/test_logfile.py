"""Metric lines: a diverged loss (NaN, ±Infinity, as Python's json prints them) stays a point."""

import json

from server.training.logfile import parse_metrics


def test_non_finite_values_become_strings_json_can_carry():
    text = "\n".join([
        'MNNWB_METRIC {"step": 1, "loss": 0.5}',
        'MNNWB_METRIC {"step": 2, "loss": NaN, "grad": Infinity}',
        'MNNWB_METRIC {"step": 3, "loss": -Infinity}',
        "MNNWB_METRIC {broken",
        "plain log line",
    ])
    points = parse_metrics(text)
    assert points == [
        {"step": 1, "loss": 0.5},
        {"step": 2, "loss": "NaN", "grad": "Infinity"},
        {"step": 3, "loss": "-Infinity"},
    ]
    # What the API answers with must be strict JSON.
    json.dumps(points, allow_nan=False)
