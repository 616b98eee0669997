"""What ``verify`` compares between a results file and its re-score: every row (``row_problems``),
the labels around its numbers (``label_problems``), the side logs, the recorded skips and every
sample's logged scores (``compare_tasks``, for the tasks of one re-scoring run)."""

from __future__ import annotations

import json
import math

from lmms_comparative.provenance import KEY
from lmms_comparative.verify import rescore as rs
from lmms_comparative.verify.predict_only import generation_checks
from lmms_comparative.verify.verdicts import SECTIONS, Verdict

# Fields of a samples line that differ between two runs of the same replies (lmms-eval's hashes of
# the inputs, the media it was given, the model's token usage, which a replayed reply lacks).
_VOLATILE = ("input_media", "doc_hash", "prompt_hash", "target_hash", "token_counts")


def same(a, b) -> bool:
    """Exact equality that counts two NaNs as equal, through dicts and lists."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def differences(name: str, original: dict, rescored: dict, where: str = "") -> list[str]:
    """Each key of a row whose value differs between the results file and the re-score (``alias``,
    a display label, aside)."""
    found = []
    for metric in sorted(set(original) | set(rescored)):
        if metric == "alias":
            continue
        if metric not in rescored or metric not in original or not same(original[metric], rescored[metric]):
            shown = lambda v: json.dumps(v)[:60] if v is not None else "absent"  # noqa: E731
            found.append(
                f"{name}{where} {metric}: the results JSON says {shown(original.get(metric))},"
                f" its samples give {shown(rescored.get(metric))}"
            )
    return found


def _strip(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in _VOLATILE}


def row_problems(name: str, original: dict, rescored: dict, missing: str) -> list[str]:
    """What differs between ``name``'s rows in the results file's sections (``original``: section ->
    rows) and the re-score's; ``missing`` (given the section) where the re-score has no such row."""
    found = []
    for section in SECTIONS:
        if name in (original.get(section) or {}):
            again = (rescored.get(section) or {}).get(name)
            if again is None:
                found.append(missing.format(section=repr(section)))
            else:
                found += differences(
                    name, original[section][name], again, "" if section == "results" else f" (in {section!r})"
                )
    return found


def check_skips(verdict: Verdict, recorded: dict, again: dict, source: str | None) -> None:
    """Items the results record as skipped must be skipped in the re-score too: the data at hand
    finds their media unusable (a local copy), or cannot look (``verify`` replays without images)."""
    if not recorded:
        return
    reads = sorted(k for k in recorded if k not in again)
    if reads:
        shown = ", ".join(f"{k} ({recorded[k]})" for k in reads[:5])
        verdict.problems.append(
            f"{len(reads)} item(s) recorded as skipped read here: {shown}{', ...' if len(reads) > 5 else ''};"
            " the run left them out of its score"
        )
    elif source == "local":
        verdict.notes.append(f"{len(recorded)} item(s) skipped, their media unusable here too")
    else:
        verdict.notes.append(
            f"{len(recorded)} item(s) skipped as recorded ({source} data: their media not checked here)"
        )


def side_log_problems(task: str, original: dict, again: dict) -> list[str]:
    """A task's side logs (CaptionQA's reader answers, which its compare and item browser read)
    against the re-score's, row by row in a fixed order; a log the run has and the re-score does
    not give (or the other way round) is a problem too."""
    found = []
    for name in sorted(set(original) | set(again)):
        mine, theirs = (original.get(name) or {}).get(task), (again.get(name) or {}).get(task)
        if mine is None and theirs is None:
            continue
        key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
        if mine is None or theirs is None or not same(sorted(mine, key=key), sorted(theirs, key=key)):
            found.append(
                f"its {name} log ({len(mine or [])} rows) is not the one the re-score writes"
                f" ({len(theirs or [])} rows): edited after the run, or not this run's"
            )
    return found


def compare_tasks(
    verdicts: dict[str, Verdict],
    ready: list[str],
    results: dict,
    record: dict,
    rescored: dict,
    rescored_samples: dict[str, list[dict]],
    logged: dict[str, list[dict]],
    side: dict | None = None,
    variant: bool = False,
) -> None:
    """Each task of ``ready`` against the re-score of its samples: its rows, ``n-samples``, data,
    labels (not a variant's), generation, skips, side logs and every sample's logged scores."""
    side = side or {}
    used = (rescored.get(KEY) or {}).get("tasks") or {}
    for task in ready:
        verdict = verdicts[task]
        verdict.problems += row_problems(
            task, results, rescored, "its row in {section} is not re-derived from the samples"
        )
        n_original, n_again = (results.get("n-samples") or {}).get(task), (rescored.get("n-samples") or {}).get(task)
        if n_original is not None and not same(n_original, n_again):
            verdict.problems.append(
                f"n-samples: the results JSON says {json.dumps(n_original)}, its samples give {json.dumps(n_again)}"
            )
        entry = record["tasks"][task]
        mismatch = rs.data_matches(
            entry.get("data") or {}, (used.get(task) or {}).get("data") or {}, record.get("schema")
        )
        if mismatch:
            verdict.problems.append(mismatch)
        if not variant:  # a variant's version and prompts are the team's own: not compared with ours
            verdict.problems += label_problems(task, results, rescored, entry, used.get(task) or {})
        problems, notes = generation_checks(
            task, record, used.get(task) or {}, str(entry.get("prompts")) if variant else None
        )
        verdict.problems += problems
        verdict.notes += notes
        check_skips(
            verdict,
            entry.get("skipped") or {},
            (used.get(task) or {}).get("skipped") or {},
            (entry.get("data") or {}).get("source"),
        )
        verdict.problems += side_log_problems(task, side, rescored.get(rs.SIDE_KEY) or {})
        original = sorted((_strip(r) for r in logged[task]), key=lambda r: r.get("doc_id", 0))
        again = sorted((_strip(r) for r in rescored_samples.get(task, [])), key=lambda r: r.get("doc_id", 0))
        changed = [o.get("doc_id") for o, a in zip(original, again) if not same(o, a)]
        if changed or len(original) != len(again):
            verdict.problems.append(
                f"{len(changed) or abs(len(original) - len(again))} sample(s) score differently from their logged"
                f" scores (doc_id {', '.join(map(str, changed[:5]))}): a reply or a score was changed after the run"
            )
        if not verdict.problems:
            verdict.notes.append("metrics and samples re-scored equal; data matches the record")


# The fields around a row's numbers that the report, compare and export read to say what a
# number means, each re-derived by the re-score: lmms-eval's task and group ``versions`` (ViDi's
# version 2 reports its corpus metrics on the 0-100 scale), a group's ``group_subtasks`` (the
# report's "(n skipped)" notes), and the record entry's prompt hash (compare's same-protocol check).
def label_problems(
    name: str, results: dict, rescored: dict, entry: dict | None = None, used: dict | None = None
) -> list[str]:
    found = []
    for section in ("versions", "group_subtasks"):
        original = (results.get(section) or {}).get(name)
        again = (rescored.get(section) or {}).get(name)
        if section == "group_subtasks":  # a task is listed with no members, or not at all, as the run was given it
            original, again = sorted(map(str, original or [])) or None, sorted(map(str, again or [])) or None
        if (original is not None or again is not None) and not same(original, again):
            found.append(
                f"{section}: the results JSON says {json.dumps(original)},"
                f" the installed package gives {json.dumps(again)}"
            )
    if entry is not None and used is not None and entry.get("prompts") != used.get("prompts"):
        found.append(
            f"prompts: the record's prompt hash {str(entry.get('prompts'))[:12]}... is not the installed package's"
            f" {str(used.get('prompts'))[:12]}... (the prompts or the task YAML differ from the ones verify"
            " re-scores with)"
        )
    return found
