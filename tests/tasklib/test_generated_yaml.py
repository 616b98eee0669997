"""The committed task YAMLs are what each benchmark's source generates (``benchmarks/<name>/tasks.py``,
``python -m lmms_comparative.benchmarks.generate``): regenerating changes no byte, no YAML in a
``yaml/`` folder is written by hand, the guide's toys are generated the same way, and the README's
task table is generated from the same sources; every file reads back, with yaml, as the data its
source states. ``--check`` names what would change."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lmms_comparative.benchmarks import generate
from lmms_comparative.registry import BENCHMARKS
from lmms_comparative.tasklib.yamlgen import Flow, Fn, Note, Task, Template, render

TOYS = [Path(__file__).resolve().parents[1] / "contract" / name for name in ("toymcq", "toyjudge")]
FOLDERS = [generate.FOLDER / b.name for b in BENCHMARKS] + TOYS


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_regenerating_changes_no_byte_and_every_yaml_is_generated(folder):
    plan = generate.plan(folder)
    assert not plan.write and not plan.remove, (
        "\n".join(plan.lines())
        + f"\nedit tasks.py, not the YAMLs; then run {generate.COMMAND} {generate._target(folder)}"
    )
    for path in (folder / "yaml").iterdir():
        if generate.is_task_yaml(path):
            assert path.read_text(encoding="utf-8").startswith(f"# {generate.header(folder)}\n"), path


def test_every_benchmark_folder_has_its_source_and_the_readme_table_is_generated(capsys):
    assert generate.main(["--check"]) == 0, capsys.readouterr()
    assert {f.name for f in generate.folders()} == {b.name for b in BENCHMARKS}
    assert not generate.readme_plan().write


SOURCE = """from types import ModuleType

from lmms_comparative.tasklib.yamlgen import Group, Hooks, Source, Task

hooks = ModuleType("lmms_comparative.benchmarks.toyx.hooks")
hooks.process_docs_a, hooks.process_docs_b = len, str
H = Hooks(hooks)
SOURCE = Source(files=(
    Task("toyx_a", {"process_docs": H(hooks.process_docs_a)}),
    Task("toyx_b", {"process_docs": H(hooks.process_docs_b)}),
    Group("toyx", ("toyx_a", "toyx_b")),
))
"""


def test_check_names_a_changed_file_and_a_hand_written_one_and_a_write_fixes_both(tmp_path, capsys):
    folder = tmp_path / "toyx"
    (folder / "yaml").mkdir(parents=True)
    (folder / "tasks.py").write_text(SOURCE, encoding="utf-8")
    assert generate.main([str(folder)]) == 0
    assert sorted(p.name for p in (folder / "yaml").iterdir()) == ["toyx.yaml", "toyx_a.yaml", "toyx_b.yaml"]
    capsys.readouterr()
    assert generate.main(["--check", str(folder)]) == 0
    (folder / "yaml" / "toyx_a.yaml").write_text("task: toyx_a\n", encoding="utf-8")
    (folder / "yaml" / "toyx_c.yaml").write_text("task: toyx_c\n", encoding="utf-8")
    (folder / "yaml" / "_placeholder.jsonl").write_text("{}\n", encoding="utf-8")  # not a YAML: left alone
    assert generate.main(["--check", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "toyx_a.yaml: differs from what" in out and "toyx_c.yaml: not produced by" in out and "toyx_b" not in out
    assert generate.main([str(folder)]) == 0
    assert sorted(p.name for p in (folder / "yaml").iterdir()) == [
        "_placeholder.jsonl",
        "toyx.yaml",
        "toyx_a.yaml",
        "toyx_b.yaml",
    ]
    assert generate.main(["--check", str(folder)]) == 0


def test_a_folder_with_yamls_and_no_source_is_an_error_and_nothing_is_removed(tmp_path, capsys):
    folder = tmp_path / "toyy"
    (folder / "yaml").mkdir(parents=True)
    (folder / "yaml" / "toyy.yaml").write_text("task: toyy\n", encoding="utf-8")
    for argv in (["--check", str(folder)], [str(folder)]):
        assert generate.main(argv) == 1
        assert "no tasks.py" in capsys.readouterr().err
    assert (folder / "yaml" / "toyy.yaml").is_file()


def test_the_readme_table_check_finds_an_edited_row(tmp_path):
    readme = tmp_path / "README.md"
    text = generate.README.read_text(encoding="utf-8")
    readme.write_text(text.replace("`captionqa_image`", "`captionqa_images`"), encoding="utf-8")
    assert generate.readme_plan(readme).write == {readme: text}
    readme.write_text(text.replace(generate.TABLE_END, ""), encoding="utf-8")
    with pytest.raises(generate.GenerateError, match="no task table"):
        generate.readme_plan(readme)


class _Tagged(yaml.SafeLoader):
    """Reads ``!function x`` as ``Fn(x)``."""


_Tagged.add_constructor("!function", lambda loader, node: Fn(loader.construct_scalar(node)))


def _plain(value):
    """What a spec's value reads back as: notes and one-line mappings unwrapped, tuples as lists."""
    if isinstance(value, Note):
        return _plain(value.value)
    if isinstance(value, Flow):
        return _plain(dict(value.value))
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _stated(spec) -> dict:
    if isinstance(spec, Template):
        return _plain(dict(spec.config))
    if isinstance(spec, Task):
        return _plain({"task": spec.name, **({"include": spec.include} if spec.include else {}), **spec.config})
    return _plain(
        {
            "group": spec.name,
            "task": list(spec.tasks),
            **spec.config,
            **({"include": spec.include} if spec.include else {}),
        }
    )


@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.name)
def test_every_file_reads_back_as_its_source_states_it(benchmark):
    source = generate.load_source(generate.FOLDER / benchmark.name)
    for name, spec in source.by_file().items():
        text = render(spec, "header")
        assert yaml.load(text, Loader=_Tagged) == _stated(spec), name
        assert list(yaml.load(text, Loader=_Tagged)) == list(_stated(spec)), f"{name}: key order"
