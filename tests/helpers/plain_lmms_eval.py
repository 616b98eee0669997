"""lmms-eval as it runs in an environment without this package: our ``lmms_eval.models`` entry
point hidden from ``importlib.metadata.entry_points``, which is where lmms-eval finds plugins
(``ModelRegistryV2.load_entrypoint_manifests``). Nothing else differs from the environment the
tests run in, so a run with and a run without the plugin can be compared side by side."""

from __future__ import annotations

import subprocess
import sys

# Python source run before anything else in the child process.
HIDE_PLUGIN = """
import importlib.metadata as _md
_original_entry_points = _md.entry_points
def _without_lmms_comparative(eps):
    return _md.EntryPoints(ep for ep in eps if ep.value.split(":")[0].split(".")[0] != "lmms_comparative")
def _entry_points(**params):
    found = _original_entry_points(**params)
    if isinstance(found, _md.EntryPoints):
        return _without_lmms_comparative(found)
    if hasattr(found, "groups"):  # Python < 3.12 without arguments: SelectableGroups, a dict of groups
        return found.__class__({group: _without_lmms_comparative(found.select(group=group)) for group in found.groups})
    return found
_md.entry_points = _entry_points
"""

_RUN_CLI = """
import runpy, sys
sys.argv = ["lmms_eval", *sys.argv[1:]]
runpy.run_module("lmms_eval", run_name="__main__", alter_sys=True)
"""


def lmms_eval_command(plugin: bool) -> list[str]:
    """The command that starts ``python -m lmms_eval``, with or without the plugin; append the
    CLI's arguments."""
    return [sys.executable, "-m", "lmms_eval"] if plugin else [sys.executable, "-c", HIDE_PLUGIN + _RUN_CLI]


def run_lmms_eval(
    args: list[str], env: dict, plugin: bool, cwd=None, timeout: int = 600
) -> subprocess.CompletedProcess:
    """``python -m lmms_eval ARGS`` with or without the plugin (started warm, helpers/warm_python.py:
    the plugin is hidden before lmms-eval is imported either way)."""
    from helpers import run_python

    return run_python(lmms_eval_command(plugin)[1:] + list(args), env=env, cwd=cwd, timeout=timeout)
