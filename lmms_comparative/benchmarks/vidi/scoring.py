"""Corpus-level caption metrics as in COCO caption evaluation (pycocoevalcap): BLEU-1..4,
ROUGE-L and CIDEr over PTB-tokenised text. Pure functions; no lmms-eval import.

The PTB tokenizer of pycocoevalcap runs Stanford CoreNLP's tokenizer in a Java subprocess, so
Java must be installed; without it the error says what to install.
"""

from __future__ import annotations

import shutil
from typing import Mapping, Sequence

JAVA_HINT = (
    "pycocoevalcap's PTB tokenizer needs Java: install a JRE (Debian/Ubuntu: apt-get install default-jre-headless; "
    "conda: conda install openjdk) so that `java` is on PATH."
)


def require_java() -> None:
    """Stop the run when no ``java`` is on PATH (pycocoevalcap's PTB tokenizer runs it)."""
    if shutil.which("java") is None:
        raise RuntimeError(JAVA_HINT)


def ptb_tokenize(texts: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """PTB-tokenise ``{id: [sentence, ...]}`` as the COCO evaluation does."""
    require_java()
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    return PTBTokenizer().tokenize({key: [{"caption": s} for s in sentences] for key, sentences in texts.items()})


def caption_item_stats(references: Mapping[str, Sequence[str]], predictions: Mapping[str, str]) -> dict:
    """What the corpus-level metrics are made of, per id (sorted): ``bleu`` rows of BLEU's
    sufficient statistics [testlen, reflen, guess_1..4, correct_1..4] as pycocoevalcap's
    BleuScorer counts them (the "closest" reference length, as its Bleu.compute_score asks),
    ``rougeL`` and ``cider`` per-item scores (the corpus scores are their means; CIDEr's document
    frequencies come from the references of the whole corpus, so call this once over all items)."""
    import numpy as np
    from pycocoevalcap.bleu.bleu_scorer import BleuScorer
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    keys = sorted(references)
    if set(keys) != set(predictions):
        raise ValueError("references and predictions must have the same ids")
    gts = ptb_tokenize({k: list(references[k]) for k in keys})
    res = ptb_tokenize({k: [predictions[k]] for k in keys})
    scorer = BleuScorer(n=4)
    for k in keys:
        scorer += (res[k][0], gts[k])
    bleu = []
    for comps in scorer.ctest:
        reflen = scorer._single_reflen(comps["reflen"], "closest", comps["testlen"])
        bleu.append([comps["testlen"], reflen, *comps["guess"], *comps["correct"]])
    _, rouge = Rouge().compute_score(gts, res)
    _, cider = Cider().compute_score(gts, res)
    return {
        "ids": keys,
        "bleu": np.asarray(bleu, dtype=float).reshape(-1, 10),
        "rougeL": np.asarray(rouge, dtype=float),
        "cider": np.asarray(cider, dtype=float),
    }


def bleu_from_totals(totals):
    """Corpus BLEU-1..4 from summed sufficient statistics (shape (..., 10)), by BleuScorer's
    formula (bleu_scorer.py compute_score: smoothing constants, brevity penalty when short)."""
    import numpy as np

    tiny, small = 1e-15, 1e-9
    totals = np.asarray(totals, dtype=float)
    testlen, reflen = totals[..., 0], totals[..., 1]
    guess, correct = totals[..., 2:6], totals[..., 6:10]
    running = np.cumprod((correct + tiny) / (guess + small), axis=-1)
    bleus = running ** (1.0 / np.arange(1, 5))
    ratio = (testlen + tiny) / (reflen + small)
    penalty = np.where(ratio < 1, np.exp(1 - 1 / ratio), 1.0)
    return bleus * penalty[..., None]


def corpus_scores(stats: Mapping, idx=None) -> dict:
    """BLEU-1..4, ROUGE-L and CIDEr of the items of ``caption_item_stats`` (all, or the rows of an
    index matrix ``idx`` of shape (b, n): then arrays of b resampled corpus scores)."""
    if idx is None:
        bleu = bleu_from_totals(stats["bleu"].sum(axis=0))
        out = {f"bleu{k + 1}": float(bleu[k]) for k in range(4)}
        return {**out, "rougeL": float(stats["rougeL"].mean()), "cider": float(stats["cider"].mean())}
    bleu = bleu_from_totals(stats["bleu"][idx].sum(axis=1))
    out = {f"bleu{k + 1}": bleu[:, k] for k in range(4)}
    return {**out, "rougeL": stats["rougeL"][idx].mean(axis=1), "cider": stats["cider"][idx].mean(axis=1)}


def caption_scores(references: Mapping[str, Sequence[str]], predictions: Mapping[str, str]) -> dict[str, float]:
    """BLEU-1..4, ROUGE-L and CIDEr of one prediction per id against that id's references."""
    if not references and not predictions:
        return {}
    return corpus_scores(caption_item_stats(references, predictions))
