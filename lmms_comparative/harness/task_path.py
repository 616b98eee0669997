"""Patch: ``lmms_eval.tasks.TaskManager.initialize_tasks``, so that every TaskManager indexes our
task YAMLs and the run's model is known to the tasks.

lmms-eval 0.7.3 has an entry-point group for models (``lmms_eval.models``) but none for tasks, and
its ``LMMS_EVAL_PLUGINS`` variable adds a plugin's task folder only after the TaskManager has
indexed tasks. The model entry points are loaded when ``lmms_eval.models`` is first imported, which
the evaluator does before any TaskManager exists. So the entry-point payload wraps
``initialize_tasks`` once: our folder joins ``include_path``, the ``--model`` of the run is recorded
(``run_model``), the exit-status sink and the table wrappers are (re)installed, and a model class
that cannot import for want of a video decoder stops the run before anything loads. If a future
lmms-eval's ``initialize_tasks`` has no ``include_path``, we log how to fall back to
``--include_path`` instead of failing. Opt out with ``LMMS_COMPARATIVE_NO_TASK_HOOK=1``.

lmms-eval parses every task YAML of the index with PyYAML's pure-Python parser on every run; the
files of our folder are read with libyaml's parser instead (``_read_ours_with_libyaml``: the same
loader class otherwise, lmms-eval's constructors), about 2 s -> 0.3 s for our 229 tasks
(``bench/task_index.py``). lmms-eval's own task files keep its reader.
"""

from __future__ import annotations

import functools
import inspect
import os

from lmms_comparative import yaml_dir
from lmms_comparative.failures import ModelCapabilityError, ProtocolError, stop_run
from lmms_comparative.harness import exit_status
from lmms_comparative.harness.patch import unpatched
from lmms_comparative.switches import OURS_ONLY, cli_value  # noqa: F401 - handed on: other modules read them here
from lmms_comparative.tasklib import capabilities, host

_MARKER = "_lmms_comparative_task_path"
OPT_OUT = "LMMS_COMPARATIVE_NO_TASK_HOOK"
# Index our folder only, not lmms-eval's own ~3,600 task YAMLs (parsed with the pure-Python YAML
# loader on every run: about 9 s on a 2-core machine). For runs of our tasks only; ``score`` and
# ``verify`` set it for the lmms-eval runs they start. lmms-eval's own tasks are then unknown.


def ours_only() -> bool:
    """Whether ``LMMS_COMPARATIVE_OUR_TASKS_ONLY`` asks for our task folder alone."""
    return os.environ.get(OURS_ONLY, "").strip() not in ("", "0")


class _RunTasks:
    """Whether the current run's ``--tasks`` names one of our tasks, groups, tags or YAML files
    (None until a TaskManager has indexed the tasks); the task index; the task objects lmms-eval
    loaded, by name."""

    ours: bool | None = None
    index: dict = {}
    loaded: dict = {}


def task_index() -> dict:
    """The last TaskManager's task index (name -> type, yaml_path, ...)."""
    return dict(_RunTasks.index)


def loaded_tasks() -> dict:
    """The task objects lmms-eval loaded in this process, by task name (groups walked)."""
    return dict(_RunTasks.loaded)


def _note_loaded(tree) -> None:
    for value in tree.values() if isinstance(tree, dict) else ():
        if isinstance(value, dict):
            _note_loaded(value)
        else:
            name = getattr(getattr(value, "config", None), "task", None)
            if isinstance(name, str):
                _RunTasks.loaded[name] = value


def misspelt_task(requested: list[str], index: dict) -> str | None:
    """The one-line message for a requested name that is not in the task index but looks like one
    of ours: the closest indexed name is ours (a few letters away), or it has one of our benchmarks'
    prefixes that no task of anyone else's shares (upstream lmms-eval has ``captionqa_*`` tasks of its
    own). None when every name is known or none looks like ours: lmms-eval's own message stands."""
    import difflib

    from lmms_comparative.registry import named_like

    missing = [name for name in requested if name not in index and "*" not in name and not os.path.isfile(name)]
    if not missing:
        return None
    ours = our_names(index)
    names = sorted(index)
    for name in missing:
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
        if close:
            if close[0] in ours:
                return f"--tasks {name}: no such task; did you mean `{close[0]}`?"
            continue  # someone else's name, misspelt
        benchmark = named_like(name)
        if benchmark is not None and not any(benchmark.owns_task(other) for other in names if other not in ours):
            return f"--tasks {name}: no task of {benchmark.title} has that name (`lmms-eval --tasks list` lists them)"
    return None


def predict_only(argv: list[str] | None = None) -> bool:
    """Whether the current lmms-eval CLI process runs with ``--predict_only`` (generation only: no
    metric is computed, the samples are scored later by ``lmms-comparative score``)."""
    import sys

    argv = sys.argv[1:] if argv is None else argv
    return any(arg in ("--predict_only", "-x") for arg in argv)


def requested_tasks(argv: list[str] | None = None) -> list[str]:
    """The names of the current lmms-eval CLI process's ``--tasks``, as lmms-eval splits them;
    [] outside the CLI or without the flag."""
    value = cli_value("--tasks", argv)
    return [name for name in value.split(",") if name] if value is not None else []


def _under_ours(path) -> bool:
    """Whether ``path`` (a YAML file) lies in our task folder."""
    return isinstance(path, str) and os.path.realpath(path).startswith(os.path.realpath(yaml_dir()) + os.sep)


def our_names(task_index: dict) -> set[str]:
    """The names of the task index that are ours: indexed from our folder, or a tag whose tasks are."""
    ours = {name for name, entry in task_index.items() if _under_ours(entry.get("yaml_path"))}
    return ours | {
        name for name, entry in task_index.items() if entry.get("type") == "tag" and set(entry.get("task") or ()) & ours
    }


def unregistered_task(requested: list[str], task_index: dict) -> str | None:
    """The one-line message for a requested task of ours whose folder has no registry line (a
    benchmark added without its entry in ``BENCHMARKS``): its run would have no preflight and no
    provenance record, so it stops instead. None when every requested task of ours is registered."""
    import fnmatch

    from lmms_comparative.registry import of_task

    folder = os.path.realpath(yaml_dir())
    for name, entry in sorted(task_index.items()):
        path = entry.get("yaml_path")
        if (
            not any(name == r or fnmatch.fnmatchcase(name, r) for r in requested)
            or not _under_ours(path)
            or of_task(name) is not None
        ):
            continue
        where = os.path.relpath(os.path.realpath(path), folder).split(os.sep)[0]
        return (
            f"lmms-comparative: --tasks {name}: benchmarks/{where} has no line in the registry (BENCHMARKS in "
            "lmms_comparative/registry.py), so the run would have no preflight and no provenance record; add its "
            "import and entry there (docs/adding-a-benchmark.md)"
        )
    return None


def names_ours(requested: list[str], task_index: dict) -> bool:
    """Whether any requested name (a task, group or tag name, a wildcard as lmms-eval matches them,
    or a YAML path) is one of ours: indexed from our folder, or a tag whose tasks are."""
    import fnmatch

    ours = our_names(task_index)
    for name in requested:
        if _under_ours(name) or any(fnmatch.fnmatchcase(task, name) for task in ours):
            return True
    return False


def _our_task_configs_loaded() -> bool:
    """lmms-eval has loaded one of our task configs in full: their ``!function`` hooks import a
    ``lmms_comparative.benchmarks.<name>.hooks`` module (nothing else in an lmms-eval process does)."""
    import sys

    return any(
        name.startswith("lmms_comparative.benchmarks.") and name.endswith(".hooks") for name in list(sys.modules)
    )


def run_includes_ours() -> bool:
    """Whether the current lmms-eval run includes one of our tasks: its ``--tasks`` names one
    (read when the TaskManager indexed the tasks), or lmms-eval has loaded one of our task configs
    (a ``--config`` file, a group of the user's that includes ours, the Python API)."""
    return bool(_RunTasks.ours) or _our_task_configs_loaded()


def _preflight() -> None:
    """In the lmms-eval CLI, once our tasks are loaded and before any is evaluated: check what
    their scoring will call (``lmms_comparative/preflight.py``); stop the run on a problem."""
    import sys

    from lmms_comparative.registry import named_like

    if not requested_tasks():
        return  # the Python API or a test: the caller decides (preflight.run)
    ours = [
        name for name in _RunTasks.loaded if named_like(name) is not None
    ]  # a team's variant named like ours is preflighted too
    if not ours:
        return
    from loguru import logger

    from lmms_comparative import preflight

    if predict_only():  # nothing is scored here: the scoring settings are checked by ``score`` later
        needs = preflight.needs_of(ours)
        if needs:
            what = ", ".join(sorted({n.label for n in needs}))
            logger.info(
                f"lmms-comparative preflight: --predict_only: nothing is scored in this run, so {what} is not "
                "checked; `lmms-comparative score BENCHMARK <output folder> -o OUT` will need it (docs/scoring.md)"
            )
        return
    try:
        lines = preflight.run(ours)
    except preflight.PreflightError as exc:
        stop_run(exc)
    for line in lines:
        logger.info(f"lmms-comparative preflight: {line}")
    if lines and "--log_samples" not in sys.argv[1:]:
        logger.warning(
            "lmms-comparative: scoring calls an LLM or a model after generation; without --log_samples the replies "
            "are not kept if scoring fails (with it, lmms-comparative score <output folder> can score them again)"
        )


def _with_our_path(include_path):
    ours = yaml_dir()
    if include_path is None:
        return [ours]
    paths = [include_path] if isinstance(include_path, str) else list(include_path)
    if not any(os.path.realpath(p) == os.path.realpath(ours) for p in paths):
        paths.append(ours)
    return paths


def check() -> str | None:
    """None if ``TaskManager.initialize_tasks`` takes ``include_path``, else why not."""
    from lmms_eval.tasks import TaskManager

    original = getattr(TaskManager.initialize_tasks, "__wrapped__", TaskManager.initialize_tasks)
    if "include_path" not in inspect.signature(original).parameters:
        return "TaskManager.initialize_tasks has no include_path parameter"
    if not callable(getattr(TaskManager, "load_task_or_group", None)):
        return "TaskManager has no load_task_or_group"
    return None


def _yaml_reader_check() -> str | None:
    """None if lmms-eval reads task YAMLs as ``_read_ours_with_libyaml`` expects, else why not."""
    from lmms_eval import utils

    load = getattr(utils.load_yaml_config, "__wrapped__", utils.load_yaml_config)
    if list(inspect.signature(load).parameters)[:4] != ["yaml_path", "yaml_config", "yaml_dir", "mode"]:
        return "lmms_eval.utils.load_yaml_config(yaml_path, yaml_config, yaml_dir, mode) changed"
    if not (callable(getattr(utils, "ignore_constructor", None)) and callable(getattr(utils, "import_function", None))):
        return "lmms_eval.utils has no ignore_constructor / import_function"
    return None


@functools.cache
def _libyaml_loader():
    """lmms-eval's loader (``yaml.full_load``: the FullLoader constructor) on libyaml's parser, a
    class of its own so that ``!function`` is added to it per read, as lmms-eval adds it to
    FullLoader; None without libyaml. Made on first use: the entry point imports no YAML."""
    import yaml

    base = getattr(yaml, "CFullLoader", None)
    return None if base is None else type("_LibyamlLoader", (base,), {})


def _read_ours_with_libyaml() -> bool:
    """Make lmms-eval read the task YAMLs of our folder with libyaml's parser: the same documents,
    the same constructors (lmms-eval's ``!function`` constructors, ``yaml.full_load``'s), in a tenth
    of the time. lmms-eval parses each task YAML (and the template it includes) with the pure-Python
    parser on every run, about 2 s for our 229 tasks; its own tasks' YAMLs are left to it. Returns
    whether it is in place (no libyaml in this PyYAML, or a changed reader: lmms-eval's own)."""
    from lmms_eval import utils

    if getattr(utils.load_yaml_config, _MARKER, False):
        return True
    loader_class = _libyaml_loader()
    if loader_class is None or _yaml_reader_check() is not None:
        return False
    original = utils.load_yaml_config
    # A plain prefix test, no realpath: it runs for each of lmms-eval's ~3,600 task files too. Our
    # folder joins the index as yaml_dir() (resolved), so lmms-eval's paths to our files start
    # with it; a symlinked --include_path to our folder only gets lmms-eval's reader.
    ours = yaml_dir() + os.sep

    @functools.wraps(original)
    def load_yaml_config(yaml_path=None, yaml_config=None, yaml_dir=None, mode="full"):
        if yaml_config is None and isinstance(yaml_path, str) and yaml_path.startswith(ours):
            constructor = utils.ignore_constructor if mode == "simple" else utils.import_function
            loader_class.add_constructor("!function", constructor)
            with open(yaml_path, "rb") as file:
                loader = loader_class(file)
                loader.name = yaml_path  # import_function resolves a !function beside the file
                try:
                    yaml_config = loader.get_single_data()
                finally:
                    loader.dispose()
        return original(yaml_path=yaml_path, yaml_config=yaml_config, yaml_dir=yaml_dir, mode=mode)

    setattr(load_yaml_config, _MARKER, True)
    utils.load_yaml_config = load_yaml_config
    return True


_RUN_START: list = []  # called when a run starts: harness.install.install_all, handed here


def when_run_starts(function) -> None:
    """Call ``function`` when a run starts (before lmms-eval indexes its tasks), once per run
    however often it is handed: ``install.install_all``, which this module cannot import (it imports
    this one)."""
    if function not in _RUN_START:
        _RUN_START.append(function)


def install() -> bool:
    """Make every lmms-eval TaskManager index our tasks. Returns whether the hook is in place."""
    if os.environ.get(OPT_OUT, "").strip() not in ("", "0"):
        return False
    try:
        from lmms_eval.tasks import TaskManager
    except Exception:  # lmms-eval not importable: nothing to hook
        return False
    if getattr(TaskManager, _MARKER, False):
        return True
    problem = check()
    if problem:
        unpatched("task_path", problem)
        return False
    original = TaskManager.initialize_tasks

    @functools.wraps(original)
    def initialize_tasks(self, include_path=None, *args, **kwargs):
        host.RunModel.value = getattr(self, "model_name", None) or host.RunModel.value
        try:
            exit_status.mode()
        except ProtocolError as exc:  # a setting of ours the user chose: stop before anything runs
            stop_run(exc)
        # A run starts: every patch in place, whatever the process imported so far (the table
        # patch included, again: the CLI module has bound make_table by name by now).
        for start in _RUN_START:
            start()
        exit_status.watch_evaluation_errors()
        if ours_only():
            args, kwargs = (), {**kwargs, "include_defaults": False}
        result = original(self, _with_our_path(include_path), *args, **kwargs)
        _RunTasks.index = result if isinstance(result, dict) else {}
        typo = misspelt_task(requested_tasks(), _RunTasks.index)
        if typo:  # lmms-eval would print a traceback and exit 0, after loading for seconds
            stop_run(ProtocolError(typo))
        _RunTasks.ours = names_ours(requested_tasks(), _RunTasks.index)
        stray = unregistered_task(requested_tasks(), _RunTasks.index) if _RunTasks.ours else None
        if stray:
            stop_run(ProtocolError(stray))
        if _RunTasks.ours:
            try:
                capabilities.require_model_dependencies(host.RunModel.value)
            except ModelCapabilityError as exc:  # before any data or weights load; not retried
                stop_run(exc)
        return result

    load_original = TaskManager.load_task_or_group

    @functools.wraps(load_original)
    def load_task_or_group(self, *args, **kwargs):
        loaded = load_original(self, *args, **kwargs)
        _note_loaded(loaded)  # the task objects, for the results file's provenance
        _preflight()
        return loaded

    TaskManager.initialize_tasks = initialize_tasks
    TaskManager.load_task_or_group = load_task_or_group
    setattr(TaskManager, _MARKER, True)
    _read_ours_with_libyaml()
    return True


exit_status.set_includes_ours(run_includes_ours)  # the exit status asks this module whether the run includes our tasks
