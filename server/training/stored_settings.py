"""Reading back saved backend settings that an older server accepted and this one does not."""

from typing import Any

from pydantic import BaseModel, ValidationError


def still_valid(model: type[BaseModel], stored: dict[str, Any]) -> dict[str, Any]:
    """``stored`` without the fields ``model`` now refuses, so they fall back to their defaults.

    Limits were added after some values could be saved (an infinite timeout, a prefix over the
    length limit); such a row must not make every read of the settings fail. Saving the settings
    again replaces it.
    """
    try:
        model.model_validate(stored)
    except ValidationError as exc:
        refused = {error["loc"][0] for error in exc.errors() if error["loc"]}
        return {name: value for name, value in stored.items() if name not in refused}
    return stored
