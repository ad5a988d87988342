"""``import MNNCV`` in a playground run: the workbench's kit (device_bridge/playground/kit.py)."""

from device_bridge.playground.kit import GRAY, RGB, RGBA, Kit

__all__ = ["GRAY", "RGB", "RGBA", "Kit"]
