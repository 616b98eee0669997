"""The docs pages that claim "every" are checked against the code: docs/scoring.md ("the formats,
with the command that scores each") names every prediction format each registered benchmark reads,
and docs/settings.md ("every environment variable the package reads") names every variable the
package's source reads, found by reading that source (``ast``), not from a list kept by hand."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

from lmms_comparative.registry import BENCHMARKS
from lmms_comparative.rescoring.run import formats_of

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "lmms_comparative"
SCORING, SETTINGS = ROOT / "docs" / "scoring.md", ROOT / "docs" / "settings.md"
VARIABLE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # an environment variable's name: FOO_BAR
# Reads whose name is a function's argument, not written at the read: where the names come from,
# each checked below from its source (the records), or why it is no setting.
BY_ARGUMENT = {
    ("data/roots.py", "env_var"): "each benchmark's root_variable (its data loader passes it)",
    ("preflight.py", "variable"): "a scoring call's setting (the SBERT model's variable)",
    ("verify/rescore.py", "variable"): "each benchmark's root_variable",
    ("report/item_browser.py", "benchmark.root_variable or ''"): "each benchmark's root_variable",
    ("report/item_browser.py", "b.root_variable"): "each benchmark's root_variable",
    (
        "judges/config.py",
        "name",
    ): "the engine's settings: {PREFIX}_* of each scoring call and the names its function spells",
    ("benchmarks/contract_run.py", "k"): "the contract check restores the variables it set itself: no setting",
}


def _is_environ(node: ast.AST) -> bool:
    """``os.environ`` (or ``environ`` imported from os)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    ) or (isinstance(node, ast.Name) and node.id == "environ")


def env_reads(source: str) -> tuple[list[ast.expr], set[str]]:
    """What a module's source reads from the environment: the name expressions of its
    ``os.environ.get(X)``, ``os.environ[X]`` and ``os.getenv(X)`` (and, in a function that holds
    ``os.environ`` under another name, of that name's ``.get(X)`` and ``[X]``); and the names it
    spells without a read at hand: a module constant ending in ``_ENV``, and every variable-shaped
    string in a function that holds ``os.environ`` under another name (the names it picks from)."""
    tree = ast.parse(source)
    reads: list[ast.expr] = []
    spelled: set[str] = set()
    for node in tree.body:  # module constants naming a variable: NAME_ENV = "LMMS_..."
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            if any(isinstance(t, ast.Name) and t.id.endswith("_ENV") for t in node.targets):
                spelled.add(node.value.value)
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        aliases = {
            t.id
            for n in ast.walk(function)
            if isinstance(n, ast.Assign) and _is_environ(n.value)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        if aliases:
            spelled |= {
                n.value
                for n in ast.walk(function)
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and VARIABLE.fullmatch(n.value)
            }
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                holder = node.func.value
                if node.func.attr == "get" and (
                    _is_environ(holder) or (isinstance(holder, ast.Name) and holder.id in aliases)
                ):
                    reads.append(node.args[0])
                elif node.func.attr == "getenv" and isinstance(holder, ast.Name) and holder.id == "os":
                    reads.append(node.args[0])
            elif (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and (_is_environ(node.value) or (isinstance(node.value, ast.Name) and node.value.id in aliases))
            ):
                reads.append(node.slice)
    return reads, spelled


def _value(module, expr: ast.expr) -> str | None:
    """The name an expression holds: a string written there, or a module-level constant
    (``MAX_FAILED_ENV``, ``provenance.ANSWERS_ENV``, ``SBERT.setting``) read from the imported
    module; None for a function's argument or local name."""
    if isinstance(expr, ast.Constant):
        return expr.value if isinstance(expr.value, str) else None
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name) or module is None or expr.id not in vars(module):
        return None
    value = vars(module)[expr.id]
    for attr in reversed(parts):
        value = getattr(value, attr, None)
    return value if isinstance(value, str) else None


def package_variables() -> tuple[set[str], list[str]]:
    """Every variable name the package's source reads (a read's name resolved where it is a
    string or a module constant), and the reads left unresolved that ``BY_ARGUMENT`` does not
    account for (``file: expression``)."""
    names: set[str] = set()
    unknown: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "environ" not in source and "getenv" not in source and "_ENV" not in source:
            continue
        reads, spelled = env_reads(source)
        names |= spelled
        rel = path.relative_to(PACKAGE).as_posix()
        module = None
        if any(not isinstance(r, ast.Constant) for r in reads):
            module = importlib.import_module(
                ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            )
        for expr in reads:
            value = _value(module, expr)
            if value is not None:
                names.add(value)
            elif (rel, ast.unparse(expr)) not in BY_ARGUMENT:
                unknown.append(f"{rel}: {ast.unparse(expr)}")
    return names, unknown


def record_variables() -> set[str]:
    """The names the records give: each benchmark's root variable and its scoring calls' settings."""
    found = {b.root_variable for b in BENCHMARKS if b.root_variable}
    return found | {call.setting for b in BENCHMARKS for call in b.scoring_calls}


def undocumented(names, page: str, prefixes=()) -> list[str]:
    """The names a settings page does not give in backticks; a name under one of ``prefixes`` (an
    LLM call's settings) may be given as ``{PREFIX}_REST``, and a bare ``REST`` a function picks
    from counts when the page gives ``{PREFIX}_REST``."""
    given = set(re.findall(r"`([^`]+)`", page))

    def documented(name: str) -> bool:
        if name in given:
            return True
        rest = next((name[len(p) + 1 :] for p in prefixes if name.startswith(p + "_")), name)
        return f"{{PREFIX}}_{rest}" in given

    return sorted(n for n in set(names) if not documented(n))


def missing_formats(page: str) -> list[str]:
    """``benchmark: format`` for each format a registered benchmark reads (its own, and the common
    ``samples`` and ``mapping``) that the page does not name: an own format on a row of the formats
    table with the command that scores it (``lmms-comparative score <benchmark>``), a common one
    in backticks."""
    rows = [line for line in page.splitlines() if line.startswith("|")]
    missing = []
    for benchmark in BENCHMARKS:
        own = dict(benchmark.predictions_part().formats)
        for name in formats_of(benchmark):
            if name in own:
                found = any(f"`{name}`" in row and f"lmms-comparative score {benchmark.name} " in row for row in rows)
            else:
                found = f"`{name}`" in page
            if not found:
                missing.append(f"{benchmark.name}: {name}")
    return missing


def test_the_scoring_page_names_every_format_of_every_benchmark_with_its_command():
    assert missing_formats(SCORING.read_text(encoding="utf-8")) == []


def test_the_settings_page_names_every_variable_the_package_reads():
    names, unknown = package_variables()
    assert unknown == [], (
        "reads whose variable is neither a string nor a module constant here, and not accounted for in "
        f"BY_ARGUMENT: {unknown}"
    )
    names |= record_variables()
    assert {
        "LMMS_COMPARATIVE_NO_PREFLIGHT",
        "LMMS_COMPARATIVE_MAX_FAILED",
        "SUBTLEBENCH_ROOT",
        "DIFFSPOT_JUDGE_REASONING_EFFORT",
        "OPENAI_API_KEY",
    } <= names  # the scan finds them
    prefixes = [call.setting for b in BENCHMARKS for call in b.scoring_calls if call.kind == "llm"]
    assert undocumented(names, SETTINGS.read_text(encoding="utf-8"), prefixes) == []


def test_a_missing_variable_or_format_is_reported():
    source = (
        'import os\nLIMIT_ENV = "TOY_LIMIT"\nNAME = "TOY_NAME"\n\ndef f(v):\n    env = os.environ\n    return '
        'os.environ.get("TOY_A"), os.getenv(NAME), os.environ[v], env.get("TOY_B", "")\n'
    )
    reads, spelled = env_reads(source)
    assert [ast.unparse(r) for r in reads] == ["'TOY_A'", "NAME", "v", "'TOY_B'"] and spelled == {
        "TOY_LIMIT",
        "TOY_A",
        "TOY_B",
    }
    page = "| `TOY_A` | x |\n| `{PREFIX}_MODEL` | y |"
    assert undocumented({"TOY_A", "TOY_LIMIT", "TOY_JUDGE_MODEL", "TOY_JUDGE_DEPTH", "MODEL"}, page, ["TOY_JUDGE"]) == [
        "TOY_JUDGE_DEPTH",
        "TOY_LIMIT",
    ]
    scoring = SCORING.read_text(encoding="utf-8")
    row = next(line for line in scoring.splitlines() if "`captions`" in line and line.startswith("|"))
    assert missing_formats(scoring.replace(row, "")) == ["captionqa: captions"]
    assert "mapping" in " ".join(missing_formats(scoring.replace("`mapping`", "mapping")))
