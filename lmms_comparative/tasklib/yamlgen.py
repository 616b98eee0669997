"""The task-YAML kit: a benchmark states its task files once, as data, in its folder's ``tasks.py``
(``SOURCE``: templates, tasks and groups built from its tables of types, prompts, sources), and
``python -m lmms_comparative.benchmarks.generate`` writes them into its ``yaml/`` folder, the files
lmms-eval reads (as lm-evaluation-harness's ``_generate_configs.py`` writes MMLU's; here the files
stay committed and a test regenerates them).

The writer is its own (no yaml import; a test reads every file back with yaml): block style, keys
in the order given, ``Note`` comments above a key or list item, ``Flow`` mappings on one line,
``Fn`` as lmms-eval's ``!function`` tag, made from the hook object itself (``Hooks``). Nothing here
names a benchmark.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Union

# The loader's placeholder: one row that only satisfies lmms-eval's dataset loader, next to the
# YAMLs (``process_docs`` returns the real docs).
PLACEHOLDER = {
    "dataset_path": "json",
    "dataset_kwargs": {"data_files": {"test": "_placeholder.jsonl"}},
    "test_split": "test",
}

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")
_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"}


@dataclass(frozen=True)
class Fn:
    """A hook named by its dotted path, written ``!function <target>``."""

    target: str


class Hooks:
    """A hooks module's objects as ``Fn``: with ``H = Hooks(hooks)``, ``H(hooks.doc_to_text)`` is
    ``Fn("<module>.doc_to_text")``. The dotted path is taken from the object: the one public name
    the module binds it to, so the YAML's ``!function`` names a ``def`` (or an assignment) that grep
    finds, and a hook the module does not hold fails when the files are generated."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def __call__(self, hook: object) -> Fn:
        return Fn(f"{self.module.__name__}.{bound_name(self.module, hook)}")


def bound_name(module: ModuleType, hook: object) -> str:
    """The public name ``module`` binds ``hook`` to (its own ``__name__`` first); ValueError when it
    binds it to none, or to several (a YAML must name one)."""
    own = getattr(hook, "__name__", None)
    if isinstance(own, str) and not own.startswith("_") and getattr(module, own, None) is hook:
        return own
    names = sorted(n for n, v in vars(module).items() if v is hook and not n.startswith("_"))
    if len(names) != 1:
        where = f"under {', '.join(names)}" if names else "under no public name"
        raise ValueError(f"{module.__name__} holds the hook {hook!r} {where}: a task file must name it once")
    return names[0]


def kit_hook(hook: object) -> Fn:
    """One of the kit's own hooks (``group_sum_counts``, ``KeepAllResponses``, ...), named as
    ``lmms_comparative.tasklib`` hands it out."""
    face = sys.modules[__package__ or ""]  # this module's package, loaded before it: no import back up

    return Fn(f"{face.__name__}.{bound_name(face, hook)}")


@dataclass(frozen=True)
class Note:
    """``value`` with ``text`` written as comment lines (one per line of it) above its key or list item."""

    text: str
    value: Any


@dataclass(frozen=True)
class Flow:
    """A mapping written on one line: ``{default: {prompt: concat}}``."""

    value: Mapping[str, Any]


@dataclass(frozen=True)
class Template:
    """A file other files ``include:`` (``_<what>_template_yaml``): lmms-eval indexes no task from it."""

    name: str
    config: Mapping[str, Any]
    note: str = ""  # comment lines at the top of the file


@dataclass(frozen=True)
class Task:
    """``<name>.yaml``: ``task: <name>``, ``include: <include>`` when given, then ``config``."""

    name: str
    config: Mapping[str, Any] = field(default_factory=dict)
    include: str | None = None
    note: str = ""


@dataclass(frozen=True)
class Group:
    """``<name>.yaml``: ``group: <name>``, its ``task:`` list, ``config``, then ``include:`` when given."""

    name: str
    tasks: tuple[str, ...]
    config: Mapping[str, Any] = field(default_factory=dict)
    include: str | None = None
    note: str = ""


Spec = Union[Template, Task, Group]


def family(
    tasks: Iterable[Task],
    group: str,
    config: Mapping[str, Any] | None = None,
    include: str | None = None,
    note: str = "",
) -> tuple[Spec, ...]:
    """A family's files: its tasks, then ``group``, the group of them (``config``, ``include`` and
    ``note`` are the group's)."""
    tasks = tuple(tasks)
    return (*tasks, Group(group, tuple(t.name for t in tasks), config or {}, include, note))


@dataclass(frozen=True)
class Source:
    """A benchmark's task files (every YAML of its ``yaml/`` folder) and its cell of the README's
    task table (Markdown: the families a user runs)."""

    files: tuple[Spec, ...]
    readme: str = ""

    def by_file(self) -> dict[str, Spec]:
        """{file name: spec}; a file name given twice raises ValueError."""
        found: dict[str, Spec] = {}
        for spec in self.files:
            name = file_name(spec)
            if name in found:
                raise ValueError(f"two specs write {name}")
            found[name] = spec
        return found


def file_name(spec: Spec) -> str:
    """The file a spec is written to: a template's own name, else ``<name>.yaml``."""
    return spec.name if isinstance(spec, Template) else f"{spec.name}.yaml"


def metric(name: str, aggregation: Any, higher_is_better: bool | None = True) -> dict:
    """A task's ``metric_list`` entry."""
    return {"metric": name, "aggregation": aggregation, "higher_is_better": higher_is_better}


def metric_list(
    hooks: Hooks, aggregations: Mapping[str, object], names: Iterable[str], unranked: Collection[str]
) -> list:
    """A task's ``metric_list``: an entry per metric of ``names``, in order, aggregated by its hook in
    ``aggregations``; higher is better, except for the ``unranked`` ones (counts, intervals,
    breakdowns), whose ``higher_is_better`` is null."""
    return [metric(m, hooks(aggregations[m]), None if m in unranked else True) for m in names]


def group_metric(name: str, aggregation: Any = "mean", weight_by_size: bool | None = None) -> dict:
    """A group's ``aggregate_metric_list`` entry (``weight_by_size`` written only when given)."""
    return {
        "metric": name,
        "aggregation": aggregation,
        **({} if weight_by_size is None else {"weight_by_size": weight_by_size}),
    }


def group_config(metrics: list | Note, metadata: Any = None) -> dict:
    """A group's own config: its ``aggregate_metric_list`` (a list of ``group_metric`` entries, or a
    ``Note`` of one), then its ``metadata`` (default: version 1.0)."""
    return {"aggregate_metric_list": metrics, "metadata": {"version": 1.0} if metadata is None else metadata}


def group_template(name: str, note: str, metrics: list | Note) -> Template:
    """The template a family's groups ``include:``: how they combine their tasks' metrics."""
    return Template(name, group_config(metrics), note)


def generation(max_new_tokens: int, temperature: float | int) -> dict:
    """``generation_kwargs`` with no stop strings (lmms-eval would otherwise stop at a blank line)."""
    return {"max_new_tokens": max_new_tokens, "temperature": temperature, "until": []}


def generate_until(hooks: Hooks, visual: object, text: object, target: object, messages: object = None) -> dict:
    """The head of a ``generate_until`` template's config: the loader's placeholder, the output type,
    then the doc hooks in the order lmms-eval's files give them (``doc_to_messages``, when given,
    before ``doc_to_target``), each named through ``hooks``."""
    return {
        **PLACEHOLDER,
        "output_type": "generate_until",
        "doc_to_visual": hooks(visual),
        "doc_to_text": hooks(text),
        **({} if messages is None else {"doc_to_messages": hooks(messages)}),
        "doc_to_target": hooks(target),
    }


def check_tables(where: str, tables: Iterable[tuple[str, Mapping[str, object], Iterable[str]]]) -> None:
    """ValueError when a hook table of a ``tasks.py`` (``(its name, {key: hook}, the keys of the task
    table it covers)``) leaves out a key of the task table, or names one it lacks: every task must
    find its hooks. ``where`` opens the message (``"captionqa tasks.py"``)."""
    for name, hooks_of, keys in tables:
        wanted = set(keys)
        missing, extra = sorted(wanted - set(hooks_of)), sorted(set(hooks_of) - wanted)
        if missing or extra:
            raise ValueError(f"{where}: {name} lacks {missing} and has no task for {extra}")


# ---- the writer ----------------------------------------------------------------------------------


def render(spec: Spec, header: str = "") -> str:
    """The text of a spec's file, ``header`` (a comment line) first when given."""
    if isinstance(spec, Template):
        body = dict(spec.config)
    elif isinstance(spec, Task):
        body = {"task": spec.name, **({"include": spec.include} if spec.include else {})}
        body.update(_own(spec.config, body))
    elif isinstance(spec, Group):
        body = {"group": spec.name, "task": list(spec.tasks)}
        body.update(_own(spec.config, {**body, "include": None}))
        if spec.include:
            body["include"] = spec.include
    else:
        raise TypeError(f"not a task file spec: {spec!r}")
    lines = ([f"# {header}"] if header else []) + _comment(spec.note, 0) + _mapping(body, 0)
    return "\n".join(lines) + "\n"


def _own(config: Mapping, fixed: Mapping) -> Mapping:
    clash = sorted(set(config) & set(fixed))
    if clash:
        raise ValueError(f"config sets {', '.join(clash)}, which the spec's fields write")
    return config


def _comment(text: str, indent: int) -> list[str]:
    return [(" " * indent + f"# {line}").rstrip() for line in text.split("\n")] if text else []


def _block(value) -> bool:
    return isinstance(value, (dict, list, tuple)) and bool(value)


def _mapping(mapping: Mapping, indent: int) -> list[str]:
    lines = []
    for key, value in mapping.items():
        if isinstance(value, Note):
            lines += _comment(value.text, indent)
            value = value.value
        if _block(value):
            lines.append(" " * indent + f"{_key(key)}:")
            lines += _mapping(value, indent + 2) if isinstance(value, dict) else _sequence(value, indent + 2)
        else:
            lines.append(" " * indent + f"{_key(key)}: {scalar(value)}")
    return lines


def _sequence(items, indent: int) -> list[str]:
    lines = []
    for item in items:
        if isinstance(item, Note):
            lines += _comment(item.text, indent)
            item = item.value
        if isinstance(item, dict) and item:
            inner = _mapping(item, indent + 2)
            if isinstance(next(iter(item.values())), Note):
                raise ValueError("a list item's first key cannot carry a note (put it on the item)")
            lines += [" " * indent + "- " + inner[0].lstrip()] + inner[1:]
        elif _block(item):
            raise ValueError("a list directly in a list is not written")
        else:
            lines.append(" " * indent + f"- {scalar(item)}")
    return lines


def _key(key) -> str:
    if not isinstance(key, str) or not _PLAIN.fullmatch(key):
        raise ValueError(f"not a plain key: {key!r}")
    return key


def scalar(value) -> str:
    """A value on one line: ``!function`` for ``Fn``, flow style for ``Flow`` and empty containers,
    YAML's spellings of booleans, null and numbers, a string plain where YAML reads it back as that
    string, else double-quoted."""
    if isinstance(value, Fn):
        return f"!function {value.target}"
    if isinstance(value, Flow):
        return "{" + ", ".join(f"{_key(k)}: {_flow(v)}" for k, v in value.value.items()) + "}"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"no YAML spelling kept here for {value}")
        return repr(value)
    if isinstance(value, str):
        return (
            value
            if _PLAIN.fullmatch(value) and value.lower() not in _RESERVED
            else json.dumps(value, ensure_ascii=False)
        )
    if isinstance(value, (list, tuple, dict)) and not value:
        return "[]" if not isinstance(value, dict) else "{}"
    raise TypeError(f"cannot write {value!r} on one line")


def _flow(value) -> str:
    return scalar(Flow(value)) if isinstance(value, dict) else scalar(value)
