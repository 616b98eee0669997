"""The gate: every byte of a submitted results folder enters through here (docs/security.md).

``verify``, ``report``, ``compare``, ``export``, ``score``, ``release_keys`` and
``captionqa-export`` read folders that strangers send. They find the files of a folder with
``scan`` (or ``run_of`` for one results file) and read them only through ``Entry``:

- **Enumerated once, iteratively.** A folder is listed level by level (no recursion: a folder
  1,100 levels deep is a line, not a ``RecursionError``), at most ``MAX_FOLDER_DEPTH`` levels and
  ``MAX_ENTRIES`` entries; a link (to a file or a folder) is never followed, and anything that is
  not a regular file or a folder (a pipe, a device, a socket) is passed over with why.
- **Names parsed, never globbed.** A run is a ``<date>_results.json``; its other files are the
  names of the same folder that begin with exactly ``<date>_`` followed by one of our fixed forms
  (``samples_<task>.jsonl``, ``llm_answers.jsonl``, ``verify.json``, ``<side log>_<task>.jsonl``).
  Folder text never becomes a glob pattern (a ``[`` in a date is a character like any other), a
  path (a task name is a key of ``Run.samples``, not a file name to build) or an argument.
- **Opened by descriptor.** ``Entry.read_bytes`` opens the folder chain component by component
  with ``O_NOFOLLOW`` and the file itself with ``O_NOFOLLOW | O_NONBLOCK``, checks it is still a
  regular file, and reads at most its bound: a link swapped in after the scan is refused too.
- **Parsed against a schema.** ``results_json`` parses with pydantic-core's linear parser, bounds
  depth, digits and string lengths (``untrusted.loads``), then validates the sections every command
  reads against ``schema.RESULTS`` (pydantic). ``json_lines`` reads a log line by line, each line
  bounded and validated, reduced by the caller's function as it is read, so memory follows the
  items kept, not the bytes of the file; a log past ``MAX_LINES`` lines is refused.

A file that fails is one ``Unsafe`` line naming what is wrong; callers name the file and go on with
the others.

This module lists the folders and parses what is read; a file's ``Entry`` and the reading of its bytes
are in ``gate_entry``, the naming of a run's files in ``run_files``. Callers import all of it from here.
"""

from __future__ import annotations

import fnmatch
import gc
import os
import stat
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar, overload

from lmms_comparative.data.gate_entry import MAX_LINE_BYTES, MAX_LINES, NOT_FOLLOWED, Entry, open_folder
from lmms_comparative.data.run_files import ANSWERS_NAME, RESULTS_SUFFIX, SAMPLES_INFIX, VERDICT_NAME, Run, runs_of
from lmms_comparative.data.untrusted import MAX_DEPTH, MAX_JSON_BYTES, MAX_LOG_BYTES, Unsafe, loads

__all__ = [
    "ANSWERS_NAME",
    "FOLDER_NOT_FOLLOWED",
    "MAX_ENTRIES",
    "MAX_FOLDER_BYTES",
    "MAX_FOLDER_DEPTH",
    "MAX_LINES",
    "MAX_LINE_BYTES",
    "NOT_FOLLOWED",
    "RESULTS_SUFFIX",
    "SAMPLES_INFIX",
    "VERDICT_NAME",
    "Entry",
    "Folder",
    "Run",
    "files_matching",
    "json_lines",
    "listing",
    "logs_named",
    "read_json",
    "refusal",
    "results_json",
    "rows",
    "run_of",
    "scan",
]

# lmms-eval writes ``<output_path>/<model>/`` (two levels); a folder of submissions adds a few more.
MAX_FOLDER_DEPTH = 24
# Entries listed in one folder tree: a run writes a dozen files; a folder of a hundred runs, some thousands.
MAX_ENTRIES = 200_000
# Bytes of the regular files listed under one folder: a folder of a hundred full CompBench runs.
MAX_FOLDER_BYTES = 64 << 30
FOLDER_NOT_FOLLOWED = "a link to a folder: not followed (links inside a submitted folder are never followed)"


@dataclass
class Folder:
    """What ``scan`` found: the runs in path order, and what it passed over with why."""

    runs: list[Run]
    passed: list[tuple[Path, str]]
    files: list[Entry] = field(default_factory=list)  # every regular file listed, in path order


def _list(base: Path, parts: tuple[str, ...], sizes: dict[str, int] | None = None) -> list[tuple[str, str]]:
    """(name, kind) of a folder's entries, kind one of file, folder, link, other; opened with no
    link followed. ``sizes``, given, gets each regular file's size."""
    fd = open_folder(base, parts)
    try:
        found = []
        with os.scandir(fd) as entries:
            for item in entries:
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError:
                    continue
                mode = info.st_mode
                kind = (
                    "link"
                    if stat.S_ISLNK(mode)
                    else "file"
                    if stat.S_ISREG(mode)
                    else "folder"
                    if stat.S_ISDIR(mode)
                    else "other"
                )
                found.append((item.name, kind))
                if sizes is not None and kind == "file":
                    sizes[item.name] = info.st_size
        return sorted(found)
    finally:
        os.close(fd)


def listing(folder: str | Path) -> list[tuple[str, str]]:
    """(name, kind) of one folder's entries, sorted, kind one of file, folder, link, other: what a
    verdict's file hashes cover (a link or a pipe named like a run's file is listed too)."""
    return _list(Path(folder), ())


def scan(
    root: str | Path, side_logs: tuple[str, ...] = (), max_depth: int = MAX_FOLDER_DEPTH, max_entries: int = MAX_ENTRIES
) -> Folder:
    """Every run under the folder ``root``, level by level, in path order; no link followed, no
    recursion; the links, non-regular files, folders past ``max_depth`` and entries past
    ``max_entries`` passed over with why. ``side_logs``: the side-log names to recognise."""
    base = Path(root)
    runs: list[Run] = []
    passed: list[tuple[Path, str]] = []
    files: list[Entry] = []
    queue: deque[tuple[str, ...]] = deque([()])
    seen, total = 0, 0
    while queue:
        parts = queue.popleft()
        sizes: dict[str, int] = {}
        try:
            names = _list(base, parts, sizes)
        except OSError as exc:
            passed.append(
                (base.joinpath(*parts), f"a folder that cannot be listed ({exc.strerror or exc}): passed over")
            )
            continue
        seen += len(names)
        total += sum(sizes.values())
        if seen > max_entries:
            passed.append(
                (
                    base.joinpath(*parts),
                    f"past the {max_entries:,} entries a folder of runs holds: the rest is not read",
                )
            )
            break
        if total > MAX_FOLDER_BYTES:
            passed.append(
                (
                    base.joinpath(*parts),
                    f"past the {MAX_FOLDER_BYTES >> 30} GiB a folder of runs holds: the rest is not read",
                )
            )
            break
        runs += runs_of(base, parts, names, side_logs)
        for name, kind in names:
            if kind == "file":
                files.append(Entry(base, (*parts, name)))
            elif kind == "link":
                passed.append(
                    (
                        base.joinpath(*parts, name),
                        FOLDER_NOT_FOLLOWED if _points_to_folder(base, (*parts, name)) else NOT_FOLLOWED,
                    )
                )
            elif kind == "other" and name.endswith((".json", ".jsonl")):  # named like a run's file
                passed.append(
                    (base.joinpath(*parts, name), "not a regular file (a pipe, a device or a socket): not read")
                )
            elif kind == "folder":
                if len(parts) + 1 > max_depth:
                    passed.append(
                        (
                            base.joinpath(*parts, name),
                            f"a folder {len(parts) + 1} levels down, past the {max_depth} a folder of runs needs:"
                            " not read",
                        )
                    )
                else:
                    queue.append((*parts, name))
    runs.sort(key=lambda r: str(r.path))
    return Folder(runs, passed, sorted(files, key=lambda e: str(e.path)))


def files_matching(root: str | Path, pattern: str) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The regular files under ``root`` whose name matches our fixed ``pattern`` (the caller's
    constant, never folder text), in path order, and what ``scan`` passed over with why."""
    found = scan(root)
    return [entry.path for entry in found.files if fnmatch.fnmatchcase(entry.name, pattern)], found.passed


def logs_named(root: str | Path, accept: Callable[[str], object]) -> list[Entry]:
    """The regular files under ``root`` (``scan``) whose name ``accept`` accepts, in path order."""
    return [entry for entry in scan(root).files if accept(entry.name)]


def _points_to_folder(base: Path, parts: tuple[str, ...]) -> bool:
    try:
        return stat.S_ISDIR(os.stat(base.joinpath(*parts)).st_mode)
    except (OSError, ValueError):
        return False


def run_of(results_file: str | Path, side_logs: tuple[str, ...] = ()) -> Run:
    """The run of one results file given by the caller (its folder listed, one level, no link
    followed among its files); ``Unsafe`` when the name is not ``<date>_results.json`` or the file
    is not a regular file there."""
    path = Path(results_file)
    folder = path.parent
    try:
        names = _list(folder, ())
    except OSError as exc:
        raise Unsafe(f"its folder cannot be listed ({exc.strerror or exc})") from None
    kinds = dict(names)
    if kinds.get(path.name) == "link":
        raise Unsafe(NOT_FOLLOWED)
    if kinds.get(path.name) != "file":
        raise Unsafe("not a regular file named <date>_results.json: not read")
    for run in runs_of(folder, (), names, side_logs):
        if run.results.name == path.name:
            return run
    raise Unsafe("not named <date>_results.json: not read")


T = TypeVar("T")


def refusal(entry: Entry, exc: Exception) -> str:
    """The one line that names a file and why it was refused (``file, line 3: ...`` for a line)."""
    text = str(exc)
    return f"{entry.shown()}, {text}" if text.startswith("line ") else f"{entry.shown()}: {text}"


def read_json(entry: Entry, limit: int = MAX_JSON_BYTES, depth: int = MAX_DEPTH) -> Any:
    """A JSON file's value, bounded (``untrusted.loads``); ``Unsafe`` or ``ValueError`` in one line."""
    return loads(entry.read_bytes(limit), depth)


@overload
def json_lines(entry: Entry, reduce: None = None, limit: int = MAX_LOG_BYTES) -> Iterator[tuple[int, dict]]: ...


@overload
def json_lines(
    entry: Entry, reduce: Callable[[dict], T | None], limit: int = MAX_LOG_BYTES
) -> Iterator[tuple[int, T]]: ...


def json_lines(
    entry: Entry, reduce: Callable[[dict], Any] | None = None, limit: int = MAX_LOG_BYTES
) -> Iterator[tuple[int, Any]]:
    """(line number, ``reduce(row)``) for every line of a JSON-lines log, each line a bounded JSON
    object; ``Unsafe`` naming the line otherwise. ``reduce`` keeps what the caller needs (None:
    the line is dropped), so that only that is held while the rest of the file streams past."""
    for number, raw in entry.lines(limit):
        try:
            row = loads(raw)
        except ValueError as exc:  # Unsafe (a bound) or not JSON
            raise Unsafe(f"line {number}: {exc}") from None
        if not isinstance(row, dict):
            raise Unsafe(f"line {number}: expected a JSON object, got {type(row).__name__}")
        kept = reduce(row) if reduce is not None else row
        if kept is not None:
            yield number, kept


@overload
def rows(
    entry: Entry, error: type[Exception], reduce: None = None, limit: int = MAX_LOG_BYTES
) -> list[tuple[int, dict]]: ...


@overload
def rows(
    entry: Entry, error: type[Exception], reduce: Callable[[dict], T | None], limit: int = MAX_LOG_BYTES
) -> list[tuple[int, T]]: ...


def rows(
    entry: Entry, error: type[Exception], reduce: Callable[[dict], Any] | None = None, limit: int = MAX_LOG_BYTES
) -> list[tuple[int, Any]]:
    """Every (line number, reduced row) of a log (``json_lines``), read whole; ``error`` carrying
    the one line that names the file and the line (``refusal``) where it is refused."""
    try:
        with _no_cycle_collection():
            return list(json_lines(entry, reduce, limit))
    except Unsafe as exc:
        raise error(refusal(entry, exc)) from None


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while a log is read whole: parsed JSON holds no reference
    cycle, yet each of its full passes walks every row read so far, so that its work grew with the
    rows held. Counting references frees what is dropped as before; the collector resumes as it
    was (also where the reading stops on a refused line)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def results_json(entry: Entry) -> dict:
    """A results JSON read through the gate: bounded (``read_json``), then checked against the
    schema of the sections our commands read (``schema.check_results``); ``Unsafe`` in one line."""
    from lmms_comparative.data.schema import check_results

    try:
        value = read_json(entry)
    except UnicodeDecodeError:
        raise Unsafe("not UTF-8 text: not an lmms-eval results JSON") from None
    except Unsafe:
        raise
    except ValueError as exc:
        raise Unsafe(f"{exc}: truncated or not a results file") from None
    return check_results(value)
