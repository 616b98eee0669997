"""``lmms-comparative verify RESULTS_DIR``: does every number of ours in a results folder follow from
its samples?

Every ``*_results.json`` under the folder, at any depth, is checked or named as passed over with the
reason (a file with no task or group of ours and no ``lmms_comparative`` record: lmms-eval's own
tasks). For each results file written by a run with our tasks (docs/provenance.md):

1. **Every row a reader reads.** Each task and group of ours with a row in ``results`` or ``groups``
   (what ``report`` and ``export`` read) gets a verdict: a task through its record entry, a group
   re-derived from its tasks' samples. A row of ours that no record entry backs and that the
   re-score does not give back (a task whose entry was removed, a row added by hand) is a FAIL.
2. **Item set.** A task's samples log holds every item of the recorded item set exactly once.
3. **Re-scored.** The samples logs are scored again through the tasks' own hooks, as
   ``lmms-comparative score`` does (a real lmms-eval run with the ``replay`` model, into a scratch
   folder), and every key of every row (metrics, breakdowns, counts, stderr, intervals), the
   ``n-samples`` counts and every sample's logged scores are compared exactly (lmms-eval's
   aggregation sees our items in item-key order, so one process and several give the same bits:
   ``harness/item_order.py``).
4. **Skips.** An item the record lists as skipped is skipped in the re-score only where the data
   at hand finds its media unusable too; an item whose media reads here is a FAIL ("recorded as
   skipped read here"). Where the media cannot be looked at (hub data, which the replay does not
   fetch), the verdict says how many items were skipped.
5. **Data.** The re-scoring run reads the data at hand (the ``*_ROOT`` variable the record names,
   or the hub): the same commit for the hub, the same fingerprint for a local copy.
6. **Replies generated apart.** For a ``score`` of a --predict_only run's replies, the generating
   run's record that the scored one carries (``predictions.generation``) must have this package's
   prompt hash and the re-scored items in the same doc order (``verify/predict_only.py``); its model,
   package and data copy are its claims, which the report and export show as such.

A task scored by an LLM judge or reader (the record's ``scoring_calls``) is re-scored from the
answers the run logged (``<date>_llm_answers.jsonl``, its sha256 in the record); no endpoint is ever
called, whatever the shell has set: a task whose record has no ``llm`` entry for its judge, or whose
answers log is missing, is UNVERIFIED with that reason.

It prints one verdict per task and group and a ``run:`` line with the run's overall verdict,
writes them beside each results file (``<date>_verify.json``, with a MAC under this machine's key,
``signing``: ``report`` and ``compare`` show a verdict file without a valid one as the submitter's
claim), and exits 0 only
when every one passes (1 otherwise; 2 when there is nothing to check). A malformed file
(truncated JSON, not an object, a malformed samples line, JSON nested past a sane depth, a file
past the size a real run writes) is one line naming it; the other files are still checked.

The folder may come from a stranger (docs/security.md): no link in it is followed (a linked
results file or folder is passed over, and said so), and a link standing where a verdict file goes
is refused in one line (exit 1), never written through (``data/untrusted.py``).
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from lmms_comparative import __version__
from lmms_comparative.data import gate, untrusted
from lmms_comparative.registry import side_log_names
from lmms_comparative.rescoring import warm
from lmms_comparative.rescoring.warm import Runner, cold
from lmms_comparative.verify import signing
from lmms_comparative.verify.checks import check_file
from lmms_comparative.verify.rescore import date_id
from lmms_comparative.verify.verdicts import BadFile, Verdict


def verdict_file(results_file: Path) -> Path:
    """Where the verdicts of ``results_file`` are kept: ``<date>_verify.json`` beside it."""
    return results_file.parent / f"{date_id(results_file)}_verify.json"


def overall(verdicts: list[Verdict]) -> str:
    """FAIL if any verdict fails, else UNVERIFIED if any is, else PASS."""
    statuses = {v.status for v in verdicts}
    return "FAIL" if "FAIL" in statuses else "UNVERIFIED" if "UNVERIFIED" in statuses else "PASS"


def covered_files(results_file: Path) -> dict[str, str]:
    """The sha256 of every file of the run beside ``results_file`` (``<date>_*``: the results JSON,
    the samples logs, the answers log and the side logs; the verdict file aside), by file name. A
    link or an unreadable file is listed with what it is instead of a hash."""
    prefix = f"{date_id(results_file)}_"
    found = {}
    for name, kind in gate.listing(results_file.parent):  # names compared as strings, no pattern
        if not name.startswith(prefix) or name == verdict_file(results_file).name or kind == "folder":
            continue
        try:
            found[name] = hashlib.sha256(
                gate.Entry(results_file.parent, (name,)).read_bytes(untrusted.MAX_LOG_BYTES)
            ).hexdigest()
        except untrusted.Unsafe as exc:
            found[name] = f"not read: {exc}"
    return found


def write_verdicts(results_file: Path, verdicts: list[Verdict]) -> Path | None:
    """``<date>_verify.json`` beside the results: the overall verdict and each task's, with the
    sha256 of every file of the run they were made on (``covered_files``; ``report`` and
    ``compare`` show them while every file still matches, STALE after), and a MAC under this
    machine's verdict key (``signing``: how ``read_verdicts`` tells a verdict made here from a
    submitter's claim). None when the folder cannot be written; ``untrusted.Unsafe`` when a link
    stands where the file goes (it is never written through); ``signing.KeyProblem`` when the key
    cannot be made or read."""
    files = covered_files(results_file)
    document = {
        "verified_with": __version__,
        "results_sha256": files.get(results_file.name),
        "files": files,
        "verdict": overall(verdicts),
        "tasks": {v.task: {"status": v.status, "detail": v.line().split(": ", 1)[-1]} for v in verdicts},
    }
    try:
        document = signing.sign(document)
    except signing.KeyProblem:
        raise
    except OSError as exc:  # the config folder cannot be written: a verdict without its MAC would read as a claim
        raise signing.KeyProblem(f"the verdict key {signing.key_path()} could not be made ({exc})") from None
    path = verdict_file(results_file)
    try:
        untrusted.write_file(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    except OSError:  # a read-only folder (a link in the verdict's place is untrusted.Unsafe, a ValueError: raised)
        return None
    return path


def read_verdicts(results_file: Path) -> dict | None:
    """The verdict file beside ``results_file``, for display only (``report``, ``compare``;
    ``export`` checks for itself): its document with ``made_here`` (whether ``verify`` wrote it
    with this machine's key: else it is the submitter's claim, whatever it says), ``current``
    (whether every file of the run is still the one verified) and ``changed`` (the files that are
    not: changed, added or removed since), or None when there is none."""
    path = verdict_file(results_file)
    try:
        document = untrusted.loads(untrusted.read_text(path, untrusted.MAX_JSON_BYTES))
    except (OSError, ValueError):  # absent, a link, too large or too deep, not JSON: no verdict to show
        return None
    if not isinstance(document, dict):
        return None
    document["made_here"] = signing.made_here(
        document
    )  # set before any field of ours is added: the MAC covers the file's own
    recorded = document.get("files")
    now = covered_files(results_file)
    if isinstance(recorded, dict):
        document["changed"] = sorted(name for name in set(recorded) | set(now) if recorded.get(name) != now.get(name))
    else:  # a verdict of a version that hashed the results file only: every other file is uncovered
        document["changed"] = (
            [results_file.name] if document.get("results_sha256") != now.get(results_file.name) else []
        )
        document["changed"] += [
            f"{name} (not covered by this older verdict)" for name in sorted(now) if name != results_file.name
        ]
    document["current"] = not document["changed"]
    return document


def find_runs(root: Path) -> tuple[list[gate.Run], list[tuple[Path, str]]]:
    """Every run under ``root`` (``gate.scan``: each ``<date>_results.json`` at any depth with its
    files, recognised by name, no link followed, bounded), or the run of ``root`` when it is a
    results file; and what was passed over, with why."""
    if root.is_dir():
        found = gate.scan(root, side_log_names())
        return found.runs, found.passed
    try:
        return [gate.run_of(root, side_log_names())], []
    except untrusted.Unsafe as exc:
        return [], [(root, str(exc))]


def check(run: gate.Run, runner: Runner = cold) -> list[Verdict] | str:
    """``check_file`` in a scratch folder of its own: the verdicts, or why the file is passed over;
    ``BadFile`` for a malformed file. ``runner`` starts the re-scoring lmms-eval runs."""
    with tempfile.TemporaryDirectory(prefix="lmms-comparative-verify-") as scratch:
        return check_file(run, Path(scratch), runner)


def summary(verdicts: list[Verdict], refused: bool = False) -> str:
    """The run's line under its verdicts: its overall verdict and how many tasks and groups had each."""
    counts = {s: sum(v.status == s for v in verdicts) for s in ("FAIL", "UNVERIFIED")}
    parts = [f"{n} {s}" for s, n in counts.items() if n] + (["the verdict file refused"] if refused else [])
    rows = f"{len(verdicts)} task{'' if len(verdicts) == 1 else 's'} and groups"
    return f"run: {'FAIL' if refused else overall(verdicts)} ({', '.join(parts) + ' of ' if parts else ''}{rows})"


def verify(results_dir: str | Path, out=sys.stdout) -> int:
    """Print a verdict per task and group for every results JSON under ``results_dir``; 0 only if all pass.

    The runs are checked as many at once as there are cores (``warm.cores``), each re-score
    started before any is waited for; with more than one run, the re-scores are forked from one
    server that imported lmms-eval's libraries once (``rescoring.warm``). The output is printed run
    by run in the folder's order, as the sequential path printed it."""
    out = untrusted.PrintableStream(out)
    root = Path(results_dir)
    if not root.exists():
        print(f"lmms-comparative verify: error: {results_dir}: no such file or folder", file=sys.stderr)
        return 2
    runs, links = find_runs(root)
    for link, why in links:
        print(f"{link}: passed over: {why}", file=out)
    if not runs:
        print(
            f"lmms-comparative verify: error: no *_results.json under {results_dir}"
            " (the --output_path of an lmms-eval run)",
            file=sys.stderr,
        )
        return 2
    width = min(len(runs), warm.cores())
    server = warm.Warm(width) if warm.wanted(len(runs)) else None
    if server is not None and server.process is not None:
        warm.notice(f"{len(runs)} runs: re-scored from one lmms-eval start-up (a fork server), {width} at once")
    pool = ThreadPoolExecutor(max_workers=width)
    try:
        pending = [pool.submit(check, run, server.run if server else cold) for run in runs]
        failed, checked = False, 0
        for run, future in zip(runs, pending):
            passed, counted = _report(run, future, out)
            failed |= not passed
            checked += counted
    finally:
        if server is not None:
            server.close()  # a run still going (verify interrupted) is stopped with it
        pool.shutdown(cancel_futures=True)
    if not checked and not failed:
        print(f"verify: no results file of lmms-comparative's tasks under {results_dir}", file=out)
        return 2
    # What the gate passed over (links, pipes, folders past its bounds) was not checked: said again
    # beside the verdict, so that "every task holds" is never read as "the whole folder holds".
    aside = (
        f" ({len(links)} entr{'y' if len(links) == 1 else 'ies'} passed over, not checked: listed above)"
        if links
        else ""
    )
    print(f"verify: {'every task holds' if not failed else 'NOT every task holds'}{aside}", file=out)
    return 1 if failed else 0


def _report(run: gate.Run, future: Future, out) -> tuple[bool, int]:
    """Print one run's verdicts (once its check is done) and write its verdict file: whether it
    passed, and 1 when it was checked (0 when passed over or malformed)."""
    results_file = run.path
    print(f"{results_file}:", file=out, flush=True)
    try:
        verdicts = future.result()
    except BadFile as exc:
        print(f"  BAD FILE   {results_file.name}: {exc}", file=out)
        print("  run: FAIL (a malformed file: not checked)", file=out, flush=True)
        return False, 0
    except Exception as exc:  # whatever a forged file provokes stops this file only, the others are still checked
        print(
            f"  BAD FILE   {results_file.name}: could not be checked"
            f" ({type(exc).__name__}: {' '.join(str(exc).split())[:300]})",
            file=out,
        )
        print("  run: FAIL (could not be checked)", file=out, flush=True)
        return False, 0
    if isinstance(verdicts, str):
        print(f"  passed over: {verdicts}", file=out, flush=True)
        return True, 0
    for verdict in verdicts:
        print(f"  {verdict.line()}", file=out)
    passed = all(v.status == "PASS" for v in verdicts)
    try:
        written = write_verdicts(results_file, verdicts)
    except (untrusted.Unsafe, OSError) as exc:  # a link where the verdict goes: refused, never written through
        print(f"  REFUSED    {verdict_file(results_file).name}: {exc}", file=out)
        print(f"  {summary(verdicts, refused=True)}", file=out, flush=True)
        return False, 1
    if written is None:
        print(f"  (the verdicts could not be written beside {results_file.name}: the folder is read-only)", file=out)
    print(f"  {summary(verdicts)}", file=out, flush=True)
    return passed, 1


__all__ = [
    "BadFile",
    "Verdict",
    "check",
    "check_file",
    "find_runs",
    "overall",
    "read_verdicts",
    "summary",
    "verdict_file",
    "verify",
    "write_verdicts",
]
