"""DiffSpot's scoring rules, as the authors' code applies them (Tencent/DiffSpot, MIT; the file and
function beside each rule). Pure functions: no lmms-eval, no engine.

A pair is one binary outcome. A has-diff pair is a true positive when the judge calls at least one
ground-truth mutation exactly "correct"; a no-diff pair a true negative when the judge lists no
hallucinated change. Overall = (TP + TN) / N, the official score; Easy / Medium / Hard recall, Diff
recall (TP over the has-diff pairs), No-Diff specificity (TN over the no-diff pairs) and recall per
operator break it down. N counts the judged pairs only: a pair whose judgement failed or could not
be read is left out of every numerator and denominator (scripts/evaluate.py -> diffspot/cli.py
``evaluate``), and counted apart.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Iterable, Mapping

from lmms_comparative.benchmarks.diffspot.prompts import JUDGE_PROMPT, NO_DIFF_GT_NOTE

TIERS = ("easy", "medium", "hard")
NO_DIFF = "no_diff"
SPLITS = (*TIERS, NO_DIFF)
# diffspot/data.py _DIFFICULTY_ALIASES: 28 no-diff rows of the release carry difficulty "unknown".
DIFFICULTY_ALIASES = {"unknown": NO_DIFF}
CORRECT = "correct"  # the one verdict that makes a has-diff pair a true positive (exact, case-sensitive)
# diffspot/judge.py judge_item: max_retries=3 attempts; a reply that is not JSON is asked again.
JUDGE_ATTEMPTS = 3


class UnreadableVerdict(ValueError):
    """A judge reply that parsed as JSON but is no verdict ``reduce_verdict`` can read (the authors'
    ``reduce_judge_label`` raises on it, uncaught, and their run stops): here a failed judgement."""


def split_of(difficulty, task_type) -> str | None:
    """The pair's split (diffspot/data.py ``_row_to_item``): the difficulty, "unknown" read as
    no-diff, and ``task_type`` "no_diff" winning over either; None for anything else (the authors'
    loader raises ValueError there)."""
    split = DIFFICULTY_ALIASES.get(difficulty, difficulty)
    if task_type == NO_DIFF:
        split = NO_DIFF
    return split if split in SPLITS else None


def mutations_of(raw) -> list | None:
    """The ground-truth mutations of a row's ``mutation_dicts_json`` (a list of JSON strings, one
    per mutation; empty or null on a no-diff pair): each string parsed, in order, None when there
    are none (diffspot/data.py ``_row_to_item``). ``ValueError`` for an element that is not a JSON
    string of an object (the authors' loader raises on it too)."""
    if raw is None or len(raw) == 0:
        return None
    found = []
    for element in raw:
        if not isinstance(element, str):
            raise ValueError(f"a mutation_dicts_json element is not a JSON string: {element!r:.80}")
        value = json.loads(element)
        if not isinstance(value, dict):
            raise ValueError(f"a mutation_dicts_json element is not a JSON object: {element!r:.80}")
        found.append(value)
    return found


def operator_of(mutations: list | None) -> str | None:
    """The pair's operator: the first mutation's bare ``type`` (diffspot/data.py ``_row_to_item``)."""
    return mutations[0].get("type") if mutations else None


def judge_inputs(split: str, mutations: list | None, description: str | None) -> tuple[list, str]:
    """(ground-truth mutations, ground-truth answer) the judge is given (diffspot/cli.py
    ``_judge_one``): for a no-diff pair none and ``NO_DIFF_GT_NOTE``; else the pair's mutations
    (``[]`` when none) and its ``ground_truth_diff`` ("" when none)."""
    if split == NO_DIFF:
        return [], NO_DIFF_GT_NOTE
    return list(mutations or []), description or ""


def render_judge_prompt(mutations: list, description: str, prediction: str) -> str:
    """The judge's prompt (diffspot/judge.py ``render_prompt``): the three placeholders replaced
    in this order, each text inserted as it is (so a placeholder inside an earlier insertion is
    replaced by a later one, and the prediction, inserted last, is never scanned again); the
    mutations as ``json.dumps(..., ensure_ascii=False, indent=2)``."""
    text = JUDGE_PROMPT.replace("{gt_json}", json.dumps(mutations, ensure_ascii=False, indent=2))
    text = text.replace("{gt_answer}", description)
    return text.replace("{vlm_response}", prediction)


_FENCE_OPEN = re.compile(r"^```(?:json)?\s*")
_FENCE_CLOSE = re.compile(r"\s*```$")
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_judge_reply(text: str):
    """The JSON value of a judge reply (diffspot/judge.py ``_parse_judge_json``): stripped; a
    leading ```` ``` ```` or ```` ```json ```` fence and a closing fence removed when the reply starts
    with one; a reply that does not then start with "{" cut to the span from its first "{" to its
    last "}" (when there is one); then ``json.loads``, so text after a reply that starts with "{"
    fails. ``ValueError`` (``json.JSONDecodeError``) when it is not JSON."""
    raw = text.strip()
    if raw.startswith("```"):
        raw = _FENCE_CLOSE.sub("", _FENCE_OPEN.sub("", raw))
    if not raw.startswith("{"):
        found = _OBJECT.search(raw)
        if found:
            raw = found.group(0)
    return json.loads(raw)


def reduce_verdict(label, is_no_diff: bool) -> dict:
    """A parsed verdict as the pair's outcome (diffspot/judge.py ``reduce_judge_label``): the
    mutations the judge calls exactly "correct" and the number of hallucinations (``len`` of the
    field, whatever it holds: a string counts its characters), each missing or empty field as none;
    TP = a has-diff pair with a correct mutation, TN = a no-diff pair without hallucinations.
    ``UnreadableVerdict`` where the authors' function raises (a reply that is not an object, a
    mutation that is not an object, a hallucination count that has no length)."""
    if not isinstance(label, dict):
        raise UnreadableVerdict(f"the verdict is a JSON {type(label).__name__}, not an object")
    mutations = label.get("mutations") or []
    if not isinstance(mutations, list) or not all(isinstance(m, dict) for m in mutations):
        raise UnreadableVerdict("'mutations' is not a list of objects")
    hallucinations = label.get("hallucinations") or []
    if not isinstance(hallucinations, (list, dict, str)):
        raise UnreadableVerdict(f"'hallucinations' is a {type(hallucinations).__name__}, which has no length")
    correct = sum(1 for m in mutations if m.get("verdict") == CORRECT)
    return {
        "is_true_positive": (not is_no_diff) and correct > 0,
        "is_true_negative": is_no_diff and len(hallucinations) == 0,
        "n_correct_mutations": correct,
        "n_hallucinations": len(hallucinations),
    }


def _share(hits: int, n: int) -> float:
    # The authors' aggregate gives 0.0 for an empty denominator; a share of nothing is NaN here
    # (no pair of that kind was judged), never a score of 0.
    return hits / n if n else float("nan")


def aggregate(judged: Iterable[Mapping]) -> dict:
    """The report of the judged pairs (diffspot/metrics.py ``aggregate``): each item's ``split``,
    ``operator``, ``is_true_positive`` and ``is_true_negative``. Any split other than "no_diff" is a
    has-diff tier; an item without an operator is left out of ``by_operator`` only. Shares are
    fractions; the denominators are the judged pairs (never the release's fixed counts)."""
    n_total = n_tp = n_tn = n_has_diff = n_no_diff = 0
    tier_n: dict[str, int] = defaultdict(int)
    tier_tp: dict[str, int] = defaultdict(int)
    op_n: dict[str, int] = defaultdict(int)
    op_tp: dict[str, int] = defaultdict(int)
    for item in judged:
        n_total += 1
        split, tp, tn = item["split"], bool(item.get("is_true_positive")), bool(item.get("is_true_negative"))
        if split == NO_DIFF:
            n_no_diff += 1
            n_tn += tn
            continue
        n_has_diff += 1
        tier_n[split] += 1
        n_tp += tp
        tier_tp[split] += tp
        operator = item.get("operator")
        if operator:
            op_n[operator] += 1
            op_tp[operator] += tp
    return {
        "overall_accuracy": _share(n_tp + n_tn, n_total),
        "diff_overall_recall": _share(n_tp, n_has_diff),
        "no_diff_specificity": _share(n_tn, n_no_diff),
        "n_total": n_total,
        "n_has_diff": n_has_diff,
        "n_no_diff": n_no_diff,
        "n_tp": n_tp,
        "n_tn": n_tn,
        "by_tier": {
            t: {"recall": _share(tier_tp[t], tier_n[t]), "n_pairs": tier_n[t], "n_tp": tier_tp[t]}
            for t in sorted(tier_n)
        },
        "by_operator": {
            o: {"recall": _share(op_tp[o], op_n[o]), "n_pairs": op_n[o], "n_tp": op_tp[o]} for o in sorted(op_n)
        },
    }


def headline(report: Mapping) -> dict[str, float]:
    """The leaderboard's six columns of a report (fractions), by our metric names."""
    tier = {t: report["by_tier"].get(t, {}).get("recall", float("nan")) for t in TIERS}
    return {
        "overall": report["overall_accuracy"],
        "easy_recall": tier["easy"],
        "medium_recall": tier["medium"],
        "hard_recall": tier["hard"],
        "diff_recall": report["diff_overall_recall"],
        "nodiff_specificity": report["no_diff_specificity"],
    }


def bootstrap_statistic(judged: list[Mapping]):
    """``statistic(idx)`` for ``metrics.bootstrap.vector_bootstrap``: the six headline shares of
    each resample of the judged pairs (rows of the index matrix ``idx``), as arrays."""
    import numpy as np

    # As aggregate counts them: a no-diff pair by its TN, any other by its TP.
    hit = np.asarray(
        [bool(it.get("is_true_negative" if it["split"] == NO_DIFF else "is_true_positive")) for it in judged],
        dtype=float,
    )
    masks = {t: np.asarray([it["split"] == t for it in judged], dtype=float) for t in SPLITS}
    diff = 1.0 - masks[NO_DIFF]

    def share(mask, idx):
        with np.errstate(invalid="ignore", divide="ignore"):
            return (hit * mask)[idx].sum(axis=1) / mask[idx].sum(axis=1)

    def statistic(idx):
        return {
            "overall": hit[idx].mean(axis=1),
            "easy_recall": share(masks["easy"], idx),
            "medium_recall": share(masks["medium"], idx),
            "hard_recall": share(masks["hard"], idx),
            "diff_recall": share(diff, idx),
            "nodiff_specificity": share(masks[NO_DIFF], idx),
        }

    return statistic
