"""Playground projects on the server: runs on this machine (``local.py``)."""
