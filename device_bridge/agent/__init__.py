"""The on-device agent: dials the workbench, syncs sessions' files, runs, debugs and profiles them.

It depends only on the standard library, websockets, numpy, psutil, debugpy and MNN, and never
imports the server.
"""
