"""The contract's check of a record's parts (``benchmarks/contract.py`` runs it): each part the
record offers loads, is of its type, and every function in it takes what its caller gives (the
protocols of ``record.py``)."""

from __future__ import annotations

from lmms_comparative.record import (
    Arguments,
    BuildFixture,
    Charts,
    Command,
    CompareUnits,
    Detect,
    FixturePart,
    ItemImages,
    ItemQuestions,
    Measure,
    MediaFolders,
    Parts,
    PredictionsPart,
    ReadPredictions,
    ReportPart,
    RunCommand,
    Section,
    Summary,
    signature_problems,
)

# Each part's functions and the protocol (record.py) they are called as.
# Each part, its type, and the protocol of each function it holds (tests/contract/test_part_types.py
# hands the same functions to mypy); the mappings of reader functions, by the protocol of their values.
SHAPES: dict[str, tuple[type, dict[str, type]]] = {
    "report": (
        ReportPart,
        {
            "section": Section,
            "summary": Summary,
            "charts": Charts,
            "measure": Measure,
            "compare_units": CompareUnits,
            "item_images": ItemImages,
            "item_questions": ItemQuestions,
            "media_folders": MediaFolders,
        },
    ),
    "fixture": (FixturePart, {"build": BuildFixture}),
    "predictions": (PredictionsPart, {}),
}
MAPPINGS: dict[str, dict[str, type]] = {
    "predictions": {"formats": ReadPredictions, "detect": Detect, "signatures": Detect}
}


def part_problems(benchmark) -> list[str]:
    """Each part the record offers: it loads, is of its type, and every function in it takes what
    the caller gives (``record.signature_problems``); a fixture where the data is not bundled."""
    where = f"benchmarks/{benchmark.name}"
    out: list[str] = []
    if benchmark.parts is None:
        loaded = Parts()
    else:
        try:
            loaded = benchmark.parts(benchmark)
        except Exception as exc:  # noqa: BLE001 - the contract names what happened instead
            return [f"{where}/__init__.py: its parts do not load: {type(exc).__name__}: {exc}"]
        if not isinstance(loaded, Parts):
            return [f"{where}/__init__.py: its parts loader returns a {type(loaded).__name__}, not a Parts"]
    for name, (kind, shapes) in SHAPES.items():
        part = getattr(loaded, name)
        if part is None:
            if name == "fixture" and benchmark.root_variable:
                out.append(
                    f"{where}/__init__.py: no fixture part "
                    f"(required: the data is not bundled, {benchmark.root_variable} names it)"
                )
            continue
        if not isinstance(part, kind):
            out.append(f"{where}/__init__.py: its {name} part is a {type(part).__name__}, not a {kind.__name__}")
            continue
        for field_name, shape in shapes.items():
            function = getattr(part, field_name)
            problem = (
                None
                if function is None
                else ("is not callable" if not callable(function) else signature_problems(function, shape))
            )
            if problem:
                out.append(
                    f"{where}/{name}.py: {field_name} {problem} ({shape.__name__} in lmms_comparative/record.py)"
                )
        for table, shape in MAPPINGS.get(name, {}).items():
            for key, function in getattr(part, table).items():
                problem = "is not callable" if not callable(function) else signature_problems(function, shape)
                if problem:
                    out.append(
                        f"{where}/{name}.py: {table}[{key!r}] {problem} ({shape.__name__} in "
                        "lmms_comparative/record.py)"
                    )
    for command in loaded.commands:
        if not isinstance(command, Command):
            out.append(f"{where}/__init__.py: its commands hold a {type(command).__name__}, not a Command")
            continue
        for field_name, shape in (("arguments", Arguments), ("run", RunCommand)):
            problem = signature_problems(getattr(command, field_name), shape)
            if problem:
                out.append(f"{where}: command {command.name}: {field_name} {problem}")
    return out
