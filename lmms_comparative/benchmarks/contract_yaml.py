"""The benchmark contract's reading of a folder's task YAMLs: each file's configuration as
lmms-eval's loader sees it, with every ``!function`` kept as a reference to check (``FunctionRef``)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass(frozen=True)
class FunctionRef:
    """A YAML ``!function module.attr`` reference, unresolved."""

    target: str

    def resolve(self):
        """The object the reference names (its module imported)."""
        module, _, attr = self.target.rpartition(".")
        return getattr(importlib.import_module(module), attr)


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: FunctionRef(loader.construct_scalar(node)))


def _read(path: Path) -> dict:
    config = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
    include = config.pop("include", None)
    if include:  # lmms-eval's include: the included file's keys, overridden by this file's
        config = {**_read(path.parent / include), **config}
    return config


def configs(benchmark) -> dict[str, dict]:
    """The benchmark's task and group configs by name, includes merged (``yaml/*.yaml``)."""
    found = {}
    for path in sorted((folder(benchmark) / "yaml").glob("*.yaml")):
        config = _read(path)
        name = config.get("task") if isinstance(config.get("task"), str) else config.get("group")
        found[str(name)] = {**config, "_file": path.name}
    return found


def folder(benchmark) -> Path:
    """The benchmark's folder in the installed package."""
    return Path(__file__).resolve().parent / benchmark.name


def _refs(value) -> list[FunctionRef]:
    if isinstance(value, FunctionRef):
        return [value]
    if isinstance(value, dict):
        return [r for v in value.values() for r in _refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []
