"""MNN Workbench Web: a browser IDE for on-device AI."""

__version__ = "0.1.0"
