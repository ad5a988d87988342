"""``import mnncv``: the same kit as ``import MNNCV``."""

from device_bridge.playground.kit import GRAY, RGB, RGBA, Kit

__all__ = ["GRAY", "RGB", "RGBA", "Kit"]
