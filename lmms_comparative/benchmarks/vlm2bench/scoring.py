"""VLM²-Bench scoring, as its official evaluation scripts compute it (github vlm2-bench/VLM2-Bench,
code/*/eval). Pure functions; no lmms-eval import."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Iterable, Mapping

# ---- T/F pairs ----------------------------------------------------------------------------------

_TF = re.compile(r"\b(t|f|true|false)\b", re.IGNORECASE)


def parse_tf(answer: str | None) -> str | None:
    """oc/pc eval_comp_tf_pair_batch_3acc.py ``parse_tf_answer``: exactly one T/F/true/false token
    (whole word, any case) gives "T" or "F"; none or several give None."""
    found = [m.upper()[0] for m in _TF.findall(answer or "")]
    return found[0] if len(found) == 1 else None


def gc_correct(answer: str | None, gt: str) -> bool:
    """gc eval_tf_batch_pair_3acc.py: the stripped raw answer must equal the label exactly."""
    return (answer or "").strip() == gt


def pair_accuracy(items: Iterable[Mapping], drop_incomplete: bool) -> dict[str, float]:
    """Positive, negative and pair accuracy over question pairs.

    ``items`` carry ``pair_id``, ``half`` ("p" positive, "n" negative) and ``correct``. A pair
    counts as right only when both halves are right. Incomplete pairs: the GC script counts every
    pair id (a missing half is simply not right); the OC/PC script skips pairs without both halves
    (``drop_incomplete``).
    """
    pairs: dict[str, dict[str, bool]] = defaultdict(dict)
    for it in items:
        half = pairs[it["pair_id"]]
        half[it["half"]] = half.get(it["half"], False) or bool(it["correct"])  # gc: any right item of the half
    if drop_incomplete:
        pairs = {k: v for k, v in pairs.items() if "p" in v and "n" in v}
    total = len(pairs)
    if not total:
        return {"positive": float("nan"), "negative": float("nan"), "pair": float("nan"), "pairs": 0}
    pos = sum(v.get("p", False) for v in pairs.values())
    neg = sum(v.get("n", False) for v in pairs.values())
    both = sum(v.get("p", False) and v.get("n", False) for v in pairs.values())
    return {"positive": pos / total, "negative": neg / total, "pair": both / total, "pairs": total}


def without_failed_pairs(items: Iterable[Mapping], failed: Iterable[Mapping]) -> tuple[list[Mapping], int]:
    """The items of the pairs none of whose questions failed, and how many pairs had a failed
    request. One rule for GC, OC and PC: a pair with a failed half has no verdict, so it leaves the
    pair, positive and negative accuracy alike and is counted apart (the official scripts never
    see a failed request; a GC pair would otherwise count as wrong, an OC/PC pair be dropped)."""
    broken = {it["pair_id"] for it in failed}
    return [it for it in items if it["pair_id"] not in broken], len(broken)


# ---- counting -----------------------------------------------------------------------------------

NUM_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
    "thousand": 1000,
}  # fmt: skip
_NUM_WORD = re.compile(r"\b(" + "|".join(NUM_WORDS) + r")\b", re.IGNORECASE)
PENALTY_FACTOR = 10  # acc_with_cnt_score.py: alpha
L_MAX = 4  # acc_with_cnt_score.py: longest image sequence


def _words_to_number(words: list[str]) -> int | None:
    """acc_with_cnt_score.py ``words_to_num`` on the number words of an answer, joined in order.

    Quirk kept: the official joiner lower-cases the phrase and then deletes every "and"
    (``.replace('and', ' ')``, meant for "one hundred and five"), which also cuts "thousand" into
    "thous d"; those are not number words, so a phrase containing "thousand" gives no number at
    all ("2 thousand" reads as 2, "one thousand" as nothing)."""
    tokens = " ".join(words).lower().replace("-", " ").replace("and", " ").split()
    if any(token not in NUM_WORDS for token in tokens):
        return None
    total = current = 0
    for token in tokens:
        scale = NUM_WORDS[token]
        if scale in (100, 1000):
            current = (current or 1) * scale
            total += current
            current = 0
        else:
            current += scale
    total += current
    return total or None


def parse_count(answer: str | None) -> int | None:
    """acc_with_cnt_score.py ``parse_model_answer``: every digit run is a number, and all number
    words of the answer together make one more; exactly one number is required."""
    text = (answer or "").lower()
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    words = _NUM_WORD.findall(text)
    if words:
        value = _words_to_number(words)
        if value is not None:
            numbers.append(value)
    return numbers[0] if len(numbers) == 1 else None


def count_score(predicted: int, gt: int, n_images: int) -> float:
    """Per-item Acc_num score in [0, 1] (the script reports it x100).

    1 when exact; otherwise with the normalised error eps = |N^ - N| / max(N - 1, N_img - N),
    the weight w = L_max / N_img and alpha = 10: 1 - w * eps**(1/alpha), clipped at 0.
    """
    diff = abs(predicted - gt)
    if diff == 0:
        return 1.0
    max_error = max(gt - 1, n_images - gt)
    epsilon = diff / max_error if max_error > 0 else 0.0
    penalty = (L_MAX / n_images) * epsilon ** (1.0 / PENALTY_FACTOR)
    return 1 - penalty if penalty < 1 else 0.0


def count_item(answer: str | None, gt: int, n_images: int) -> dict:
    """One counting answer: ``correct`` (exact), ``valid`` (a number in 1..N_img) and ``score``."""
    predicted = parse_count(answer)
    if predicted is None:
        return {"parsed": None, "correct": 0, "valid": False, "score": 0.0, "reason": "invalid_answer_format"}
    if not 1 <= predicted <= n_images:
        return {
            "parsed": predicted,
            "correct": 0,
            "valid": False,
            "score": 0.0,
            "reason": "answer_out_of_expected_range",
        }
    return {
        "parsed": predicted,
        "correct": int(predicted == gt),
        "valid": True,
        "score": count_score(predicted, gt, n_images),
        "reason": None,
    }


def acc_num(items: Iterable[Mapping]) -> float:
    """Mean score over *valid* answers only: the script adds neither unparseable nor out-of-range
    answers to its denominator (while exact accuracy divides by all items)."""
    valid = [it["score"] for it in items if it["valid"]]
    # fsum: exactly rounded, so the mean does not depend on the order the items arrive in (one
    # process or items gathered rank by rank).
    return math.fsum(valid) / len(valid) if valid else 0.0


# ---- grouping (MCQ) -----------------------------------------------------------------------------

_OPTION_LABEL = re.compile(r"\([A-Z]\)")


def grp_correct(answer: str | None, gt: str) -> bool:
    """eval_acc_batch_classify_mcq.py: more than one "(X)" label in the answer is wrong; otherwise
    the text before the first ")" is compared, stripped, with the label's."""
    answer = answer or ""
    if len(_OPTION_LABEL.findall(answer)) > 1:
        return False
    return answer.split(")")[0].strip() == gt.split(")")[0].strip()


# ---- video description (judge) ------------------------------------------------------------------

_JUDGE_SCORE = re.compile(r"Score:\s*(\d+)")


def parse_video_score(text: str | None) -> int | None:
    """eval_pc-v_open-ended.py: the integer after "Score:"."""
    match = _JUDGE_SCORE.search(text or "")
    return int(match.group(1)) if match else None


def video_scores(items: Iterable[Mapping]) -> dict[str, float]:
    """eval_pc-v_open-ended.py ``compute_average_scores``: AB mean (0/1) x100, ABA mean (0/1/2)
    mapped to /2 x100, final = their mean. Empty groups count 0, as the script does."""
    ab = [it["score"] for it in items if it["type"] == "AB" and it["score"] is not None]
    aba = [it["score"] for it in items if it["type"] == "ABA" and it["score"] is not None]
    ab_mapped = (sum(ab) / len(ab) if ab else 0.0) * 100
    aba_mapped = (sum(aba) / len(aba) if aba else 0.0) / 2 * 100
    return {
        "ab": ab_mapped,
        "aba": aba_mapped,
        "score": (ab_mapped + aba_mapped) / 2,
        "ab_n": len(ab),
        "aba_n": len(aba),
    }


def chance_acc_num(items: Iterable[tuple[int, int]]) -> float:
    """Exact expected Acc_num of a uniform guess among 1..N_img, for (N, N_img) per item: every
    guess is in range, so every item is in the denominator (paper appendix D.1's chance level)."""
    expected = [math.fsum(count_score(k, gt, n) for k in range(1, n + 1)) / n for gt, n in items]
    return math.fsum(expected) / len(expected) if expected else float("nan")  # order-independent


# ---- Reading a reply of the prompting strategies (CoT, VP-grid) --------------------------------------

_MY_ANSWER = re.compile(r"MY_ANSWER\s*:", re.IGNORECASE)


def answer_segment(reply: str | None) -> str:
    """The part of a reasoning reply the official parsers read. The authors published no extraction
    for their CoT and VP-grid runs (the official GC parser needs the whole stripped reply to be "T" or
    "F"), so this rule is ours: the text after the last ``MY_ANSWER:`` (the marker Figure 11 asks for
    and every reply in the paper's case studies ends with), else the reply's last non-empty line;
    stripped of white space and markdown emphasis."""
    text = str(reply or "")
    found = list(_MY_ANSWER.finditer(text))
    if found:
        segment = text[found[-1].end() :]
    else:
        lines = [line for line in text.splitlines() if line.strip()]
        segment = lines[-1] if lines else ""
    return segment.strip().strip("*_` ").strip()
