"""Payloads of model diffs, performance budgets and check reports."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from server.modeltools.schemas import InputShapes

PathStr = Annotated[str, Field(min_length=1, max_length=4096)]
RevStr = Annotated[str, Field(min_length=1, max_length=256)]
Metric = Literal["latency_ms", "size_mb", "cosine", "max_abs_error", "memory_mb", "char_accuracy", "accuracy"]
# metrics a budget holds to a minimum; the others to a maximum
MINIMA: tuple[Metric, ...] = ("cosine", "char_accuracy", "accuracy")


class DiffRequest(BaseModel):
    """Two models, or one model at two revisions: ``a`` is the baseline, ``b`` defaults to ``a``.
    A side without a revision is the working-tree file."""

    model_config = ConfigDict(extra="forbid")

    a: PathStr
    b: PathStr | None = None
    rev_a: RevStr | None = None
    rev_b: RevStr | None = None
    reference: PathStr | None = None
    inputs: dict[str, PathStr] | None = None
    input_shapes: InputShapes | None = Field(default=None, description="needed for dynamic dims")
    threads: int = Field(default=1, ge=1, le=64)
    loops: int = Field(default=20, ge=1, le=10_000)

    @model_validator(mode="after")
    def _two_sides(self) -> "DiffRequest":
        if (self.b or self.a) == self.a and self.rev_a == self.rev_b:
            raise ValueError("a diff needs two models, or one model at two revisions")
        return self


class Budget(BaseModel):
    """One ``[[budget]]`` table of ``mnnwb.toml``; every limit is optional."""

    model_config = ConfigDict(extra="forbid")

    model: PathStr
    reference: PathStr | None = None
    max_latency_ms: float | None = Field(default=None, gt=0)
    max_size_mb: float | None = Field(default=None, gt=0)
    min_cosine: float | None = Field(default=None, ge=-1, le=1)
    max_abs_error: float | None = Field(default=None, ge=0)
    max_memory_mb: float | None = Field(default=None, gt=0)
    threads: int = Field(default=1, ge=1, le=64)
    loops: int = Field(default=50, ge=1, le=100_000)
    device: str = Field(default="local", min_length=1, max_length=128)
    input_shapes: InputShapes | None = Field(default=None, description="needed for dynamic dims")

    @model_validator(mode="after")
    def _accuracy_needs_reference(self) -> "Budget":
        if (self.min_cosine is not None or self.max_abs_error is not None) and not self.reference:
            raise ValueError(f"{self.model}: min_cosine and max_abs_error need a reference model")
        return self


class BudgetFieldError(BaseModel):
    """One error of a budget the form sent: ``field`` is "" when the budget as a whole is wrong."""

    budget: int
    field: str
    detail: str


class BudgetTables(BaseModel):
    """The ``[[budget]]`` tables as written, unknown keys included (the form keeps them)."""

    model_config = ConfigDict(extra="forbid")

    budgets: list[dict[str, Any]] = Field(max_length=500)


class CheckResult(BaseModel):
    model: str = Field(description="the model, or the pipeline of a [[pipeline_budget]]")
    stage: str | None = Field(default=None, description="a pipeline budget's stage; none: end to end")
    device: str
    metric: Metric
    limit: float
    value: float | None
    passed: bool
    detail: str | None = None


class CheckReport(BaseModel):
    passed: bool
    results: list[CheckResult]
    commit: str | None = Field(default=None, description="HEAD, when the report is of a Git project")
    clean: bool = Field(default=False, description="the budgets' files are as HEAD has them")
    last_passing: str | None = Field(default=None, description="on failure: the last commit that passed")


class CheckRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    device: str | None = Field(default=None, max_length=128, description="only budgets for this device")


class CommitCheck(BaseModel):
    """The last stored result for a commit: a badge in the history."""

    commit: str
    passed: bool
    failures: list[CheckResult]
