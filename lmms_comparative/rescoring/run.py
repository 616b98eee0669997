"""``lmms-comparative score``: read a benchmark's prediction files (``replies.py``, the benchmark's
``predictions.py``), write the replay file and run the real lmms-eval CLI on it with the ``replay``
model; the groups a run writes again, a file's format, another benchmark's file named."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

from lmms_comparative import provenance, yaml_dir
from lmms_comparative.data.items import NO_IMAGES_ENV
from lmms_comparative.data.replies import (
    SAMPLES_NAME,
    Options,
    PredictionsError,
    Replies,
    group_leaves,
    read_mapping,
    read_samples,
    write_replay,
)
from lmms_comparative.rescoring.warm import Runner, cold
from lmms_comparative.switches import OURS_ONLY, RECORDED_SKIPS_ENV


def benchmark_groups(benchmark) -> dict[str, list[str]]:
    """{group: its tasks} of the benchmark's group YAMLs (``group:`` with a ``task:`` list of names)."""
    import yaml

    class _Tolerant(yaml.SafeLoader):  # a task YAML's !function tags are not needed here
        pass

    _Tolerant.add_multi_constructor("!", lambda loader, suffix, node: None)
    groups = {}
    for path in sorted(Path(yaml_dir()).rglob(f"{benchmark.name}*.yaml")):
        try:
            spec = yaml.load(path.read_text(encoding="utf-8"), Loader=_Tolerant)
        except (OSError, yaml.YAMLError):
            continue
        if isinstance(spec, dict) and isinstance(spec.get("group"), str) and isinstance(spec.get("task"), list):
            names = [t for t in spec["task"] if isinstance(t, str)]
            if names:
                groups[spec["group"]] = names
    return groups


def with_groups(tasks: list[str], groups: dict[str, list[str]]) -> list[str]:
    """``tasks`` with every benchmark group whose tasks are all among them run as the group (the
    outermost such groups), so that the group's row (SubtleBench's AVG, VLM2's Overall, CompBench's
    Avg) is written as in a model's run."""
    candidates = sorted(
        (g for g, subtasks in groups.items() if subtasks and set(group_leaves(g, groups)) <= set(tasks)),
        key=lambda g: -len(group_leaves(g, groups)),
    )
    chosen: list[str] = []
    covered: set[str] = set()
    for group in candidates:  # the largest first; a group sharing a task with a chosen one is left out
        leaves = set(group_leaves(group, groups))
        if not leaves & covered:
            chosen.append(group)
            covered |= leaves
    return chosen + [t for t in tasks if t not in covered]


def formats_of(benchmark) -> dict[str, Callable]:
    """The formats a benchmark reads: its own (``predictions.FORMATS``, in the order they are
    tried when no format is named), then the common ones."""
    key = benchmark.item_key
    own = dict(benchmark.predictions_part().formats)  # none: samples logs and mappings only
    common = {
        "samples": lambda path, options: read_samples(path, key, benchmark.has_task),
        "mapping": lambda path, options: read_mapping(path, list(options.tasks)),
    }
    return {**own, **common}


def detect(benchmark, path: Path) -> str:
    """The format of a file: a samples log (or a folder of them), else the first of the
    benchmark's formats whose ``detect`` accepts it, else ``mapping``."""
    if path.is_dir() or SAMPLES_NAME.search(path.name):
        return "samples"
    sniffers = benchmark.predictions_part().detect
    for name, accepts in sniffers.items():
        if accepts(path):
            return name
    return "mapping"


def another_benchmarks(benchmark, path: Path, detected: str) -> str | None:
    """Why ``path`` is another benchmark's file, when it is: a samples log (or a folder of them)
    of other benchmarks' tasks only, or a file that another benchmark's ``SIGNATURES`` (the
    formats recognisable for certain: a name, a first line) recognise. None otherwise."""
    from lmms_comparative.registry import BENCHMARKS, of_task

    if detected == "samples":
        from lmms_comparative.data import gate

        names = [e.name for e in gate.logs_named(path, SAMPLES_NAME.search)] if path.is_dir() else [path.name]
        tasks = sorted({m.group("task") for f in names if (m := SAMPLES_NAME.search(f))})
        if not tasks or any(benchmark.has_task(t) for t in tasks):
            return None
        owners = sorted({b.name for t in tasks if (b := of_task(t)) is not None})
        what = "a samples log" if len(names) == 1 else "samples logs"
        hint = f": score it with lmms-comparative score {owners[0]} {path} -o ..." if len(owners) == 1 else ""
        return (
            f"this is {what} of task(s) {', '.join(tasks[:4])}{' ...' if len(tasks) > 4 else ''}, not of a "
            f"{benchmark.title} task{hint}"
        )
    for other in BENCHMARKS:
        if other.name == benchmark.name:
            continue
        for name, accepts in other.predictions_part().signatures.items():
            try:
                if accepts(path):
                    return (
                        f"this looks like a {other.title} {name} file, not a {benchmark.title} one: score it with "
                        f"lmms-comparative score {other.name} {path} -o ..."
                    )
            except Exception:  # noqa: BLE001 - a sniffer that cannot read the file does not recognise it
                continue
    return None


def read_files(benchmark, paths: list[Path], fmt: str | None, options: Options) -> tuple[Replies, list[str]]:
    """All files read into one ``Replies``; and the format of each file, in order."""
    formats = formats_of(benchmark)
    if fmt and fmt not in formats:
        raise PredictionsError(f"{benchmark.name} has no prediction format {fmt!r}; it reads: {', '.join(formats)}")
    out, used = Replies(), []
    for path in paths:
        if not path.exists():
            raise PredictionsError(f"{path}: no such file or folder")
        name = fmt or detect(benchmark, path)
        elsewhere = another_benchmarks(benchmark, path, name)
        if elsewhere and not fmt:
            raise PredictionsError(f"{path}: {elsewhere}")
        replies = formats[name](path, options)
        if not replies.count():
            raise PredictionsError(f"{path}: no prediction read as {name}" + (f" ({elsewhere})" if elsewhere else ""))
        out.merge(replies)
        used.append(name)
    if options.tasks:
        out.tasks = list(options.tasks)
    return out, used


# ---- the run -------------------------------------------------------------------------------------


def score_command(
    replay_file: Path, tasks: list[str], output: Path, repeats: int, model_name: str, extra: list[str]
) -> list[str]:
    """The lmms-eval command line that scores a replay file with the ``replay`` model."""
    import sys

    model_args = f"predictions={replay_file}" + (f",model_version={model_name}" if model_name else "")
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "replay",
        "--model_args",
        model_args,
        "--tasks",
        ",".join(tasks),
        "--output_path",
        str(output),
        "--log_samples",
    ]
    if repeats > 1:
        cmd += ["--repeats", str(repeats)]
    return cmd + list(extra)


def score(
    benchmark,
    paths: list[Path],
    fmt: str | None,
    options: Options,
    output: Path,
    model_name: str = "",
    with_images: bool = False,
    extra: Sequence[str] = (),
) -> int:
    """Read the files, write the replay file under ``output``, run lmms-eval on it; the exit status
    of the run (1 on a file that cannot be read)."""
    import sys

    try:
        replies, used = read_files(benchmark, paths, fmt, options)
        tasks = replies.tasks
        if not tasks:
            raise PredictionsError(
                f"{', '.join(map(str, paths))}: the files do not say which tasks they are for: name them with --tasks"
            )
        unknown = [t for t in tasks if not benchmark.has_task(t)]
        if unknown:
            raise PredictionsError(f"--tasks {', '.join(unknown)}: not {benchmark.title} tasks")
        repeats = replies.repeats()
        if "samples" not in used:  # a run's samples keep that run's own groups (_as_run)
            tasks = with_groups(tasks, benchmark_groups(benchmark))
    except PredictionsError as exc:
        from lmms_comparative.data.untrusted import printable

        print(
            f"lmms-comparative score: error: {printable(str(exc), lines=False)}", file=sys.stderr
        )  # folder text in it
        return 2

    files = [
        {
            "path": str(path),
            "format": name,
            "sha256": provenance.fingerprint(path) if path.is_dir() else provenance.file_sha256(path),
        }
        for path, name in zip(paths, used)
    ]
    for path, name in zip(paths, used):
        print(f"{path}: read as {name}", file=sys.stderr)
    return replay(replies, benchmark.name, tasks, output, files, repeats, model_name, with_images, extra).returncode


def read_run(benchmarks: list, folder: Path) -> Replies:
    """The replies of a run's samples logs in ``folder``, for the tasks of every one of
    ``benchmarks``, as one set (``verify`` re-scores them in one lmms-eval run)."""
    merged = Replies()
    for benchmark in benchmarks:
        merged.merge(read_samples(folder, benchmark.item_key, benchmark.has_task))
    return merged


def replay(
    replies: Replies,
    label: str,
    tasks: list[str],
    output: Path,
    files: list[dict],
    repeats: int = 1,
    model_name: str = "",
    with_images: bool = False,
    extra: Sequence[str] = (),
    env: dict | None = None,
    quiet: bool = False,
    runner: Runner = cold,
):
    """Write ``replies`` as the replay file under ``output`` and run lmms-eval on ``tasks`` with the
    ``replay`` model; the finished process (its output captured when ``quiet``). ``label`` names the
    benchmark(s) in the replay file and the results' provenance. ``runner`` runs a quiet one:
    a fresh process, or a child of ``verify``'s fork server (``warm.Warm.run``)."""
    import subprocess
    import sys

    def say(text: str) -> None:
        if not quiet:
            print(text, file=sys.stderr, flush=True)

    output = output.resolve()
    replay_file = write_replay(replies, label, output / "replay" / f"{label}_predictions.json", files)
    say(f"{replies.count()} item(s), {repeats} repl{'y' if repeats == 1 else 'ies'} each, for {', '.join(tasks)}")
    env = dict(os.environ if env is None else env)
    env.setdefault(OURS_ONLY, "1")  # a replay of our tasks: lmms-eval's own task index is not needed
    if not with_images:
        env[NO_IMAGES_ENV] = "1"
    if replies.skipped:
        env[RECORDED_SKIPS_ENV] = str(replay_file)
        count = sum(len(v) for v in replies.skipped.values())
        say(f"{count} item(s) the files record as skipped stay skipped (not scored, not counted as failed)")
    arguments = list(extra)
    if replies.limit is not None and "--limit" not in arguments:
        arguments += ["--limit", f"{replies.limit:g}"]
        say(f"the scored run had --limit {replies.limit:g}: the same first docs of each task are scored")
    if replies.offset and "--offset" not in arguments:
        arguments += ["--offset", str(replies.offset)]
        say(f"the scored run had --offset {replies.offset}: its docs start at the same one")
    cmd = score_command(replay_file, tasks, output, repeats, model_name, arguments)
    say("$ lmms-eval " + " ".join(cmd[3:]))
    if quiet:
        return runner(cmd, env)
    return subprocess.run(cmd, env=env)
