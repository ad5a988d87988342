"""Pairing the outputs of two models, and spotting outputs that carry no information.

Quantizers and exporters may rename outputs (an EMA-quantized model's output is not the float
model's name), so when the two models share no output name their outputs are paired by
position, provided each pair holds the same number of values; the result says which way it was.
An output that is constant, NaN or infinite is "collapsed": int8 rounding of a net whose
outputs are ~1e-9 gives all zeros, which a cosine between two such outputs cannot reveal.
"""

from typing import Literal

import numpy as np

Matching = Literal["name", "position"]


Arrays = dict[str, np.ndarray]


def pair(actual: Arrays, expected: Arrays) -> tuple[list[tuple[str, str]], Matching]:
    """(actual name, expected name) pairs, in the expected model's order, and how they were made."""
    by_name = [(name, name) for name in expected if name in actual]
    if by_name or len(actual) != len(expected):
        return by_name, "name"
    pairs = list(zip(actual, expected, strict=True))
    if all(actual[a].size == expected[b].size for a, b in pairs):
        return pairs, "position"
    return [], "name"


def collapse(value: np.ndarray) -> str | None:
    """Why an output carries no information (NaN, Inf, one constant value), or None."""
    if value.size == 0:
        return None
    if np.isnan(value).any():
        return "contains NaN"
    if np.isinf(value).any():
        return "contains Inf"
    if value.size > 1 and float(np.ptp(value)) == 0.0:
        return f"is constant ({float(value.flat[0]):g} everywhere)"
    return None


def collapse_warnings(values: dict[str, np.ndarray], model: str) -> list[str]:
    return [
        f"output {name!r} of {model} {reason}: it carries no information, so no comparison "
        "with it can pass"
        for name, value in values.items()
        if (reason := collapse(value)) is not None
    ]
