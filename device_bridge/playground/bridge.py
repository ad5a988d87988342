"""Python calls the playground app's MNN offers and MNN's PyPI wheel lacks, so scripts written
for the app run unchanged: ``MNN.expr.set_config(backend=…, precision=…, thread=…)`` (the app's
name for the wheel's ``set_global_executor_config``). Nothing is installed when MNN is absent
(a script that imports it then fails as it would anywhere)."""

from typing import Any

from device_bridge.backends import FORWARD, PRECISION

# ``MNN.expr.Backend`` members by name → MNN's forward type (the wheel's enum has no int value).
_FORWARD = {name.upper(): number for name, number in FORWARD.items()} | {"OPENGL": 6}


def _forward(backend: Any) -> int:
    if backend is None:
        return 0
    if isinstance(backend, int):
        return backend
    name = str(backend).rsplit(".", 1)[-1].upper()
    if name not in _FORWARD:
        raise ValueError(f"set_config: backend {name} is not one this MNN build runs "
                         f"({', '.join(sorted(_FORWARD))})")
    return _FORWARD[name]


def _set_config(backend: Any = None, precision: Any = "normal", thread: int = 4, **_ignored: Any) -> None:
    import MNN

    level = PRECISION.get(precision, 0) if isinstance(precision, str) else int(precision)
    MNN.expr.set_global_executor_config(_forward(backend), level, int(thread))


def install() -> None:
    try:
        import MNN
    except ImportError:
        return
    if not hasattr(MNN.expr, "set_config"):
        MNN.expr.set_config = _set_config
