"""The task-YAML kit's writer (``lmms_comparative.tasklib.yamlgen``): what it writes for a task, a
group and a template, ``!function`` tags, notes and one-line mappings, and what it refuses."""

from __future__ import annotations

from functools import partial
from types import ModuleType

import pytest
import yaml

from lmms_comparative.tasklib.yamlgen import (
    PLACEHOLDER,
    Flow,
    Fn,
    Group,
    Hooks,
    Note,
    Source,
    Task,
    Template,
    check_tables,
    generate_until,
    generation,
    group_metric,
    metric,
    render,
    scalar,
)


def _hook(name: str):
    def hook(*_):
        return None

    hook.__name__ = name
    return hook


# A hooks module as the writer sees one: its hooks bound to public names.
HOOKS = ModuleType("pkg.hooks")
for _name in ("process_docs_a", "aggregate_accuracy", "aggregate_counts", "Keep", "doc_to_text"):
    setattr(HOOKS, _name, _hook(_name))
HOOKS.unnamed = partial(len)  # bound by assignment only
HOOKS.twice = HOOKS.again = partial(str)  # one nameless hook under two names: which would a YAML name?
H = Hooks(HOOKS)


def test_a_task():
    task = Task(
        "toy_a",
        {
            "process_docs": H(HOOKS.process_docs_a),
            "lmms_eval_specific_kwargs": Flow({"default": {"prompt": "grid"}}),
            "generation_kwargs": Note("Why 8.", generation(8, 0)),
        },
        include="_default_template_yaml",
        note="A toy task.\nTwo lines.",
    )
    assert render(task, "Generated from x") == (
        "# Generated from x\n"
        "# A toy task.\n"
        "# Two lines.\n"
        "task: toy_a\n"
        "include: _default_template_yaml\n"
        "process_docs: !function pkg.hooks.process_docs_a\n"
        "lmms_eval_specific_kwargs: {default: {prompt: grid}}\n"
        "# Why 8.\n"
        "generation_kwargs:\n"
        "  max_new_tokens: 8\n"
        "  temperature: 0\n"
        "  until: []\n"
    )


def test_a_group_writes_its_include_last():
    group = Group(
        "toy",
        ("toy_a", "toy_b"),
        {
            "aggregate_metric_list": [
                group_metric("accuracy", weight_by_size=False),
                Note("Summed.", group_metric("counts", Fn("pkg.sum"))),
            ]
        },
        include="_group_template_yaml",
    )
    assert render(group) == (
        "group: toy\n"
        "task:\n"
        "  - toy_a\n"
        "  - toy_b\n"
        "aggregate_metric_list:\n"
        "  - metric: accuracy\n"
        "    aggregation: mean\n"
        "    weight_by_size: false\n"
        "  # Summed.\n"
        "  - metric: counts\n"
        "    aggregation: !function pkg.sum\n"
        "include: _group_template_yaml\n"
    )


def test_a_template():
    template = Template(
        "_default_template_yaml",
        {
            **PLACEHOLDER,
            "metric_list": [
                metric("accuracy", H(HOOKS.aggregate_accuracy)),
                metric("counts", H(HOOKS.aggregate_counts), None),
            ],
            "filter_list": [{"name": "none", "filter": [{"function": H(HOOKS.Keep)}]}],
            "metadata": {"version": 1.0},
        },
    )
    assert render(template) == (
        "dataset_path: json\n"
        "dataset_kwargs:\n"
        "  data_files:\n"
        "    test: _placeholder.jsonl\n"
        "test_split: test\n"
        "metric_list:\n"
        "  - metric: accuracy\n"
        "    aggregation: !function pkg.hooks.aggregate_accuracy\n"
        "    higher_is_better: true\n"
        "  - metric: counts\n"
        "    aggregation: !function pkg.hooks.aggregate_counts\n"
        "    higher_is_better: null\n"
        "filter_list:\n"
        "  - name: none\n"
        "    filter:\n"
        "      - function: !function pkg.hooks.Keep\n"
        "metadata:\n"
        "  version: 1.0\n"
    )


def test_hooks_are_named_by_the_object_the_module_binds():
    assert H(HOOKS.doc_to_text) == Fn("pkg.hooks.doc_to_text")
    assert scalar(H(HOOKS.unnamed)) == "!function pkg.hooks.unnamed"  # a partial: found by identity
    with pytest.raises(ValueError, match="under again, twice"):
        H(HOOKS.twice)
    with pytest.raises(ValueError, match="under no public name"):
        H(_hook("process_docs_b"))  # a typo or a hook the module never bound fails at generation


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (True, "true"),
        (None, "null"),
        (0, "0"),
        (0.5, "0.5"),
        (2.0, "2.0"),
        ([], "[]"),
        ({}, "{}"),
        ("left_right", "left_right"),
        ("_placeholder.jsonl", "_placeholder.jsonl"),
        ("true", '"true"'),
        ("No", '"No"'),
        ("0.5", '"0.5"'),
        ("a: b", '"a: b"'),
        ("", '""'),
    ],
)
def test_scalars_read_back_as_themselves(value, written):
    assert scalar(value) == written
    assert yaml.safe_load(f"key: {written}\n")["key"] == value


def test_what_the_writer_refuses():
    with pytest.raises(ValueError, match="task"):
        render(Task("toy_a", {"task": "other"}))
    with pytest.raises(ValueError, match="first key"):
        render(Template("_t_yaml", {"metric_list": [{"metric": Note("no", "accuracy")}]}))
    with pytest.raises(ValueError, match="two specs write toy_a.yaml"):
        Source((Task("toy_a"), Task("toy_a"))).by_file()
    with pytest.raises(ValueError):
        scalar(float("nan"))


def test_a_hook_table_must_cover_the_task_table_and_no_more():
    check_tables("toy tasks.py", [("DOCS", {"a": len, "b": str}, ("a", "b"))])  # the honest twin
    with pytest.raises(ValueError, match=r"toy tasks.py: DOCS lacks \['c'\] and has no task for \[\]"):
        check_tables("toy tasks.py", [("DOCS", {"a": len, "b": str}, ("a", "b", "c"))])
    with pytest.raises(ValueError, match=r"DOCS lacks \[\] and has no task for \['b'\]"):
        check_tables("toy tasks.py", [("DOCS", {"a": len, "b": str}, ("a",))])


def test_a_generate_until_head_names_the_doc_hooks_in_lmms_evals_order():
    head = generate_until(H, HOOKS.Keep, HOOKS.doc_to_text, HOOKS.process_docs_a, messages=HOOKS.aggregate_counts)
    assert list(head)[-5:] == ["output_type", "doc_to_visual", "doc_to_text", "doc_to_messages", "doc_to_target"]
    assert head["doc_to_messages"] == Fn("pkg.hooks.aggregate_counts") and head["dataset_path"] == "json"
    assert "doc_to_messages" not in generate_until(H, HOOKS.Keep, HOOKS.doc_to_text, HOOKS.process_docs_a)
