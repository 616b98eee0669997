"""CaptionQA scoring rules, as the official ``qa.py`` (github bronyayang/CaptionQA) applies them.

Pure functions; no lmms-eval import. Quirks of the official code are kept on purpose and named.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from typing import Iterable, Mapping, Sequence

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
CANNOT_ANSWER = "Cannot answer from the caption"  # qa.py: CANNOT_ANSWER_TEXT
SHUFFLE_SEED = 0  # qa.py: --seed default
DOMAINS = ("natural", "document", "ecommerce", "embodiedai")  # qa.py: DOMAIN_SPLITS

# qa.py is_yesno_question: questions opening with these words count as yes/no.
_YESNO_STARTERS = (
    "is ", "are ", "was ", "were ", "do ", "does ", "did ", "have ", "has ", "had ",
    "can ", "could ", "will ", "would ", "should ", "shall ", "may ", "might ", "must ",
)  # fmt: skip


def is_yesno_question(question: str, choices: Sequence[str]) -> bool:
    """qa.py ``is_yesno_question``. Quirk kept: "yes"/"no" are matched as substrings of the
    lowercased choices, so "eyes" and "none" (or "north") make a question yes/no."""
    texts = [str(c).strip().lower() for c in choices]
    if any("yes" in t for t in texts) and any("no" in t for t in texts):
        return True
    return question.strip().lower().startswith(_YESNO_STARTERS)


def choices_with_cannot(question: str, choices: Sequence[str]) -> list[str]:
    """qa.py ``add_cannot_answer_option``: the cannot option is appended to non-yes/no questions."""
    return list(choices) if is_yesno_question(question, choices) else [*choices, CANNOT_ANSWER]


def gt_index(choices: Sequence[str], answer) -> int | None:
    """qa.py ``normalize_gt_letter``: index of the first choice equal to the answer (both stripped)."""
    if not choices or not isinstance(answer, str):
        return None
    for i, choice in enumerate(choices):
        if answer.strip() == str(choice).strip():
            return i
    return None


def is_scorable(question: Mapping) -> bool:
    """qa.py skips questions with fewer than two choices or an answer that is not a choice;
    skipped questions are never asked and consume no shuffle draw."""
    choices = question.get("choices") or []
    return len(choices) >= 2 and gt_index(choices, question.get("answer")) is not None


def official_permutations(
    entries: Iterable[tuple[str, Sequence[Mapping]]], seed: int = SHUFFLE_SEED, uncaptioned: Iterable[str] = ()
) -> dict[tuple[str, int], list[int]]:
    """Option permutations exactly as qa.py draws them.

    qa.py walks the entries of the split it evaluates (``--split all`` by default) in dataset order
    with one ``random.Random(seed)`` and calls ``rng.shuffle`` once per scorable question, on
    ``range(n)`` where n counts the cannot option. Every permutation therefore depends on all
    earlier questions; ``entries`` must be the (id, questions) pairs of the "all" split, in order.
    Only question text, choices and answers are needed, never the images.

    An image set without a caption (``uncaptioned``) is skipped before its questions are drawn
    (qa.py: ``if image_key not in captions: continue``), so it takes no draws; caption.py stores
    no empty caption (``if caption:``), so an empty one is the same as none.
    """
    shuffle = random.Random(seed).shuffle
    skip = {str(i) for i in uncaptioned}
    perms: dict[tuple[str, int], list[int]] = {}
    for entry_id, questions in entries:
        key = str(entry_id)
        if key in skip:
            continue
        for q_idx, q in enumerate(questions):
            if not is_scorable(q):
                continue
            choices = q["choices"]
            perm = list(
                range(len(choices) if is_yesno_question(q.get("question", ""), choices) else len(choices) + 1)
            )  # choices_with_cannot's length
            shuffle(perm)
            perms[(key, q_idx)] = perm
    return perms


def extract_letter(text: str | None, n_options: int) -> str | None:
    """qa.py ``extract_letter``, quirks included:

    - only the text after the first ``</think>``, then after the first ``Answer: ``, is read;
    - if a newline remains, only the text after the *first* newline is read (so "B\\nbecause"
      loses its B);
    - the first single-letter word of the upper-cased text decides: if it is out of range the
      letter search stops there (no second candidate) and a number 1..n is tried instead.
    """
    if not text:
        return None
    if "</think>" in text:
        text = text.split("</think>", 1)[1]
    if "Answer: " in text:
        text = text.split("Answer: ", 1)[1]
    if "\n" in text:
        text = text.split("\n", 1)[1]
    match = re.search(r"\b([A-Z])\b", text.upper())
    if match and 0 <= LETTERS.find(match.group(1)) < max(1, n_options):
        return match.group(1)
    match = re.search(r"\b([1-9][0-9]?)\b", text)
    if match and 1 <= int(match.group(1)) <= max(1, n_options):
        return LETTERS[int(match.group(1)) - 1]
    return None


def score_answer(letter: str | None, perm: Sequence[int], options: Sequence[str], n_choices: int, gt: int) -> dict:
    """Score one reader answer as qa.py does.

    ``options`` are the choices with the cannot option (unshuffled), ``perm`` maps shown position
    to original index, ``n_choices`` is K, the count without the cannot option. Correct: 1;
    "Cannot answer from the caption": 1/K + 0.05; anything else, unparseable included: 0. The
    cannot option is recognised by its text, as qa.py does (a choice that happens to read
    "Cannot answer from the caption" is treated the same way). The score is rounded to four
    decimals, as qa.py stores it.
    """
    out = {"letter": letter, "answer": None, "correct": 0, "cannot": 0, "score": 0.0}
    if letter is None:
        return out
    shown = LETTERS.find(letter)
    if not 0 <= shown < len(perm):
        return out
    original = perm[shown]
    out["answer"] = str(options[original])
    if out["answer"] == CANNOT_ANSWER:
        # qa.py stores round(score, 4) per question, and its averages are over those values.
        out.update(cannot=1, score=round(1.0 / n_choices + 0.05, 4))
    elif original == gt:
        out.update(correct=1, score=1.0)
    return out


def summarize(rows: Sequence[Mapping]) -> dict[str, float]:
    """score (mean), accuracy and cannot-rate over scored questions (qa.py print_final_summary)."""
    n = len(rows)
    if not n:
        return {"score": float("nan"), "accuracy": float("nan"), "cannot_rate": float("nan"), "n": 0}
    return {
        "score": sum(r["score"] for r in rows) / n,
        "accuracy": sum(r["correct"] for r in rows) / n,
        "cannot_rate": sum(r["cannot"] for r in rows) / n,
        "n": n,
    }


def by_category(rows: Sequence[Mapping]) -> dict[str, dict[str, float]]:
    """summarize() per question category (qa.py: the first entry of the category list, or "unknown")."""
    groups: dict[str, list] = defaultdict(list)
    for row in rows:
        groups[row.get("category") or "unknown"].append(row)
    return {k: summarize(v) for k, v in sorted(groups.items())}


def first_category(category) -> str:
    """qa.py: a list category counts by its first element."""
    if isinstance(category, list):
        return str(category[0]) if category else ""
    return str(category or "")


# ---- reading the reader's answers across runs (the report) -------------------------------------

# Paper §17.1: "the proportion of models (out of 24 total) that answer correctly": Easy >= 80%,
# Medium 50-80%, Hard < 50% (Table 10).
DIFFICULTY_BUCKETS = (("easy", 0.8), ("medium", 0.5), ("hard", 0.0))


def question_key(row: Mapping) -> tuple[str, int]:
    """A question: its image set's id and its place in that set's question list (the reader log's
    ``id`` and ``q_idx``; qa.py has no other question id)."""
    return str(row["id"]), int(row["q_idx"])


def reader_stability(reads: Sequence[Sequence[Mapping]]) -> dict:
    """The paper's reader check (§3.5: each reader "three times with temperature 0", "the standard
    deviation of its accuracy"): the same captions read several times. Accuracy per read over the
    questions every read answered (failed calls left out), its mean and sample standard deviation,
    and the share of those questions whose letter was the same in every read."""
    answered = [{question_key(r): r for r in read if not r.get("failed")} for read in reads]
    common = set.intersection(*(set(a) for a in answered)) if answered else set()
    accuracies = [sum(a[q]["correct"] for q in common) / len(common) for a in answered] if common else []
    mean = sum(accuracies) / len(accuracies) if accuracies else float("nan")
    std = (
        (sum((x - mean) ** 2 for x in accuracies) / (len(accuracies) - 1)) ** 0.5
        if len(accuracies) > 1
        else float("nan")
    )
    same = sum(1 for q in common if len({a[q].get("letter") for a in answered}) == 1)
    return {
        "reads": len(reads),
        "questions": len(common),
        "accuracies": accuracies,
        "mean": mean,
        "std": std,
        "identical": same / len(common) if common else float("nan"),
    }


def difficulty(models: Sequence[Sequence[Mapping]]) -> dict:
    """Paper §17.1 / Table 10: each question's share of models that answer it correctly, bucketed
    Easy (>= 80%), Medium (50-80%), Hard (< 50%). A model counts for a question it was asked and
    the reader answered (failed calls and uncaptioned image sets left out). Returns the share of
    questions per bucket and the number of questions and models."""
    right: dict[tuple[str, int], list[int]] = defaultdict(list)
    for rows in models:
        for row in rows:
            if not row.get("failed"):
                right[question_key(row)].append(int(row["correct"]))
    counts = {name: 0 for name, _ in DIFFICULTY_BUCKETS}
    for answers in right.values():
        share = sum(answers) / len(answers)
        counts[next(name for name, floor in DIFFICULTY_BUCKETS if share >= floor)] += 1
    total = len(right)
    return {
        **{name: (n / total if total else float("nan")) for name, n in counts.items()},
        "questions": total,
        "models": len(models),
    }
