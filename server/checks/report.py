"""A check report for people (a table) and for CI (a JUnit XML file)."""

import xml.etree.ElementTree as ET
from pathlib import Path

from server.checks.models import MINIMA, CheckReport, CheckResult

_COLUMNS = ("model", "device", "metric", "limit", "value", "result")


def _value(value: float | None) -> str:
    return "—" if value is None else f"{value:.6g}"


def _name(result: CheckResult) -> str:
    """The model, or the pipeline and (for a stage's limit) the stage."""
    return f"{result.model} › {result.stage}" if result.stage else result.model


def _row(result: CheckResult) -> tuple[str, ...]:
    verdict = "pass" if result.passed else "FAIL"
    return (_name(result), result.device, result.metric, _value(result.limit), _value(result.value), verdict)


def table(report: CheckReport) -> str:
    rows = [_COLUMNS, *(_row(r) for r in report.results)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    lines += [f"  {_name(r)} {r.metric}: {r.detail}" for r in report.results if r.detail]
    failed = sum(not r.passed for r in report.results)
    lines.append(f"{len(report.results) - failed} passed, {failed} failed")
    return "\n".join(line.rstrip() for line in lines)


def failure_message(result: CheckResult) -> str:
    if result.value is None:
        return f"{result.metric} not measured: {result.detail}"
    bound = "at least" if result.metric in MINIMA else "at most"
    return f"{result.metric} is {_value(result.value)}, the budget allows {bound} {_value(result.limit)}"


def write_junit(report: CheckReport, path: Path) -> None:
    failures = [r for r in report.results if not r.passed]
    suite = ET.Element(
        "testsuite",
        name="mnnwb check",
        tests=str(len(report.results)),
        failures=str(len(failures)),
        errors="0",
    )
    for result in report.results:
        case = ET.SubElement(
            suite, "testcase", classname=f"budget.{result.device}", name=f"{_name(result)} {result.metric}"
        )
        if not result.passed:
            ET.SubElement(case, "failure", message=failure_message(result), type=result.metric)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    path.write_bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")
