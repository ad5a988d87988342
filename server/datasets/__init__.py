"""Datasets in a project: where they are and what they hold (counts per class and split, a few
thumbnails, the files skipped and why). The readers are ``device_bridge/runtime/datasets.py``;
evaluation is a model tool (``server/modeltools/evaluate.py``). See docs/datasets.md."""
