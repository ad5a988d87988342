"""The flow of a project, data to device (docs/flow.md): each step's state, latest artifact and
next action, the action's arguments taken from what the step before made."""

from pathlib import Path
from typing import Any

from sqlmodel import Session

from server.core.errors import AppError
from server.datasets.models import DatasetSummary
from server.flow.budget_step import budgets_step
from server.flow.device_steps import deploy_step, measure_step
from server.flow.facts import Facts, Made
from server.flow.model_steps import data_step, evaluate_step, run_step, train_step
from server.flow.models import Flow, FlowNext
from server.flow.state import carry_staleness
from server.modeltools import specs
from server.projects.models import Project


def _tool(tool: str, label: str, **args: object) -> FlowNext:
    return FlowNext(action="tool", tool=tool, label=label,
                    args={k: v for k, v in args.items() if v})


def project_flow(session: Session, project: Project, data_dir: Path) -> Flow:
    facts = Facts(session, project)
    data, dataset = data_step(facts)
    train, trained = train_step(facts)
    convert, converted = run_step(facts, "convert", "Convert", [trained] if trained else [],
                                  _tool("convert", "Convert", model=trained and trained.path,
                                        output=trained and _project_model(trained)))
    quantize, quantized = run_step(
        facts, "quantize", "Quantize", [converted] if converted else [],
        _tool("quantize", "Quantize", model=converted and converted.path,
              dataset=_image_dataset(dataset), **_preprocessing(facts, converted)))
    models = [m for m in (converted, quantized) if m]
    evaluate = evaluate_step(facts, models, _tool(
        "evaluate", "Evaluate", models=[m.path for m in models], dataset=dataset and dataset.path))
    newest: Made | None = quantized or converted
    budgets = budgets_step(facts, data_dir, newest, converted if quantized else None)
    deploy, device_id = deploy_step(facts, newest)
    measure = measure_step(facts, newest, device_id)
    steps = [data, train, convert, quantize, evaluate, budgets, deploy, measure]
    return Flow(steps=carry_staleness(steps))


def _project_model(trained: Made) -> str:
    """Where convert writes: the project's root, not the job's ignored outputs, so the model
    (and the ones made from it) can be committed and the budgets' checks kept for a commit."""
    return Path(trained.path).with_suffix(".mnn").name


def _preprocessing(facts: Facts, converted: Made | None) -> dict[str, Any]:
    """The quantizer's image settings (format, mean, normal) from the converted model's spec, so
    the form calibrates as the model is fed; nothing without a spec."""
    if converted is None:
        return {}
    try:
        return specs.quantizer_preprocessing(facts.root / converted.path, set())
    except AppError:  # a bad spec: the form keeps its own defaults and the run says why
        return {}


def _image_dataset(dataset: DatasetSummary | None) -> str | None:
    """Calibration needs images: the dataset, when it holds them."""
    return dataset.path if dataset and dataset.input_kind == "image" else None
