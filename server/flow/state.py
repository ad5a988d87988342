"""How a step's staleness carries down the flow: a step made from something that has since
changed is stale, and so is every step after it that was done."""

from server.flow.models import FlowStep


def carry_staleness(steps: list[FlowStep]) -> list[FlowStep]:
    """``steps`` in order; a done step after a stale one is stale too (failed and to-do stay)."""
    stale_from: str | None = None
    for step in steps:
        if stale_from is not None and step.state == "done":
            step.state = "stale"
            step.detail = f"{step.detail}; {stale_from} is stale"
        if step.state == "stale" and stale_from is None:
            stale_from = step.title
    return steps
