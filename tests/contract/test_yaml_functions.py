"""Every ``!function`` our task YAMLs name resolves to a callable of the YAML's own benchmark (its
hooks, built from the same source as the YAMLs: ``tasks.py``) or of the kit (``lmms_comparative.tasklib``),
and every ``process_docs`` one to a docs hook, which keeps the items it skipped on itself
(``skipped_items``, read by the provenance record of the task that uses it)."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

from lmms_comparative import yaml_dir

TAGGED = re.compile(r"^[ -]*([A-Za-z_]+): !function\s+([A-Za-z0-9_.]+)", re.M)
KIT = "lmms_comparative.tasklib"


def problems(root: Path) -> tuple[int, list[str]]:
    """(how many ``!function`` tags the YAMLs under ``root/<benchmark>/yaml/`` hold, what is wrong with them)."""
    found, out = 0, []
    for path in sorted(root.glob("*/yaml/*")):
        if not path.is_file() or not (path.suffix == ".yaml" or path.name.endswith("_yaml")):
            continue
        own = f"lmms_comparative.benchmarks.{path.parent.parent.name}."
        for key, dotted in TAGGED.findall(path.read_text(encoding="utf-8")):
            found += 1
            where = f"{path.parent.parent.name}/yaml/{path.name}: {key}: {dotted}"
            module_name, _, attr = dotted.rpartition(".")
            if not (module_name.startswith(own) or module_name == KIT):
                out.append(f"{where} is neither its benchmark's nor the kit's")
                continue
            try:
                hook = getattr(importlib.import_module(module_name), attr)
            except (ImportError, AttributeError) as exc:
                out.append(f"{where} does not resolve ({type(exc).__name__}: {exc})")
                continue
            if not callable(hook):
                out.append(f"{where} is not callable")
            elif key == "process_docs" and not isinstance(getattr(hook, "skipped_items", None), dict):
                out.append(f"{where} is not a docs hook (tasklib.docs_hook): no skipped_items")
    return found, out


def test_every_yaml_function_resolves_to_a_hook_of_its_own_benchmark_or_the_kit():
    found, wrong = problems(Path(yaml_dir()))
    assert found > 500
    assert not wrong, "\n".join(wrong)


def test_the_check_finds_a_missing_a_foreign_and_a_wrong_hook(tmp_path):
    folder = tmp_path / "subtlebench" / "yaml"
    folder.mkdir(parents=True)
    hooks = "lmms_comparative.benchmarks.subtlebench.hooks"
    (folder / "subtlebench_x.yaml").write_text(
        f"task: subtlebench_x\nprocess_docs: !function {hooks}.process_docs_nowhere\n"
        "doc_to_text: !function lmms_comparative.benchmarks.vidi.hooks.doc_to_text\n"
        f"metric_list:\n  - metric: a\n    aggregation: !function {hooks}.DEFAULT_PROMPT\n",
        encoding="utf-8",
    )
    (folder / "_default_template_yaml").write_text(
        f"process_docs: !function {hooks}.doc_to_text\ndoc_to_target: !function {hooks}.doc_to_target\n",
        encoding="utf-8",
    )
    found, wrong = problems(tmp_path)
    assert found == 5
    assert [w.split(": ", 1)[0] for w in wrong] == ["subtlebench/yaml/_default_template_yaml"] + [
        "subtlebench/yaml/subtlebench_x.yaml"
    ] * 3
    assert (
        "not a docs hook" in wrong[0]
        and "does not resolve" in wrong[1]
        and "neither its benchmark's" in wrong[2]
        and "not callable" in wrong[3]
    )


def _bound_names(module_name: str) -> set[str]:
    """The names a module's source binds at its top level (or under an ``if``): ``def``, ``class``,
    an assignment's targets, an import's names: what grep finds."""
    import ast

    spec = importlib.util.find_spec(module_name)
    assert spec is not None and spec.origin, module_name
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    names: set[str] = set()
    nodes = list(tree.body)
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.If):
            nodes += node.body + node.orelse
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def test_every_yaml_function_names_a_def_or_an_assignment_in_its_module():
    """No hook is made under a name built at import time (``globals()``, an f-string): the name a
    YAML's ``!function`` gives is bound in its module's source, where grep finds it."""
    missing = []
    for path in sorted(Path(yaml_dir()).glob("*/yaml/*")):
        if path.is_file() and (path.suffix == ".yaml" or path.name.endswith("_yaml")):
            for _, dotted in TAGGED.findall(path.read_text(encoding="utf-8")):
                module_name, _, attr = dotted.rpartition(".")
                if attr not in _bound_names(module_name):
                    missing.append(f"{path.parent.parent.name}/yaml/{path.name}: {dotted}")
    assert not missing, "\n".join(missing)
