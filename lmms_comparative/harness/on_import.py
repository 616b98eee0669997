"""Run a patch when the lmms-eval module it patches is first imported, not before.

lmms-eval loads our entry point while ``lmms_eval.models`` is being imported, in every process that
imports lmms-eval's models (scripts, UIs, servers, ``lmms-eval models``). Importing the modules our
patches touch from there (``lmms_eval.tasks``, ``lmms_eval.api.task``, ``lmms_eval.evaluator_utils``,
``lmms_eval.loggers``) would pull torch, transformers and datasets into all of them. So the entry
point only registers each patch against its module's name here:

- a module already imported is patched at once;
- otherwise a finder at the head of ``sys.meta_path`` lets the other finders locate the module,
  wraps its loader, and patches the module right after its code has run, before the importer
  gets it back (so ``from lmms_eval.tasks import TaskManager`` binds the patched class).

A patch that raises is logged as a warning with the patch's name and never breaks the import.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from typing import Callable

_pending: dict[str, list[tuple[str, Callable[[], object]]]] = {}
_lock = threading.RLock()


def _run(name: str, patches: list[tuple[str, Callable[[], object]]]) -> None:
    for label, patch in patches:
        try:
            patch()
        except Exception as exc:  # noqa: BLE001 - a patch must never break lmms-eval's import
            try:
                from loguru import logger

                logger.warning(
                    f"lmms-comparative: the {label} patch could not be installed on {name} ({type(exc).__name__}: "
                    f"{exc})."
                )
            except Exception:  # pragma: no cover - loguru missing: lmms-eval cannot run either
                pass


class _PatchingLoader(importlib.abc.Loader):
    """The module's own loader, with the registered patches run after its code."""

    def __init__(self, loader, name: str) -> None:
        self._loader, self._name = loader, name

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        with _lock:
            patches = _pending.pop(self._name, [])
        _run(self._name, patches)

    def __getattr__(self, attr):  # get_source, get_filename, is_package, ...: the real loader's
        return getattr(self._loader, attr)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        with _lock:
            if fullname not in _pending:
                return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _PatchingLoader(spec.loader, fullname)
        return spec


_FINDER = _Finder()


def when_imported(module: str, label: str, patch: Callable[[], object]) -> None:
    """Run ``patch()`` once ``module`` has been imported: now if it already is, else right after
    its first import. ``label`` names the patch in a warning if it fails."""
    loaded = sys.modules.get(module)
    if loaded is not None and not _initializing(loaded):
        _run(module, [(label, patch)])
        return
    # Not imported yet, or being imported right now (its loader is chosen already, so the finder
    # cannot wrap it): the patch waits here; ``harness.install_all`` puts every patch in place
    # when a run starts in any case.
    with _lock:
        _pending.setdefault(module, []).append((label, patch))
        if _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)


def _initializing(module) -> bool:
    spec = getattr(module, "__spec__", None)
    return bool(getattr(spec, "_initializing", False))


def pending() -> list[str]:
    """Modules whose patches still wait for their import."""
    with _lock:
        return sorted(_pending)


__all__ = ["pending", "when_imported"]
