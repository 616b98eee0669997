"""Corpus-level caption metrics as in COCO caption evaluation (pycocoevalcap): BLEU-1..4,
ROUGE-L and CIDEr over PTB-tokenised text. Pure functions; no lmms-eval import.

The PTB tokenizer of pycocoevalcap runs Stanford CoreNLP's tokenizer in a Java subprocess, so
Java must be installed; without it the error says what to install.
"""

from __future__ import annotations

import shutil
from typing import Mapping, Sequence

JAVA_HINT = "pycocoevalcap's PTB tokenizer needs Java: install a JRE (Debian/Ubuntu: apt-get install default-jre-headless; conda: conda install openjdk) so that `java` is on PATH."


def require_java() -> None:
    if shutil.which("java") is None:
        raise RuntimeError(JAVA_HINT)


def ptb_tokenize(texts: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """PTB-tokenise ``{id: [sentence, ...]}`` as the COCO evaluation does."""
    require_java()
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    return PTBTokenizer().tokenize({key: [{"caption": s} for s in sentences] for key, sentences in texts.items()})


def caption_scores(references: Mapping[str, Sequence[str]], predictions: Mapping[str, str]) -> dict[str, float]:
    """BLEU-1..4, ROUGE-L and CIDEr of one prediction per id against that id's references.

    CIDEr's document frequencies come from the references of the whole corpus, so the score of an
    item depends on every other item scored with it: call this once over all items of a run.
    """
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    keys = sorted(references)
    if set(keys) != set(predictions):
        raise ValueError("references and predictions must have the same ids")
    if not keys:
        return {}
    gts = ptb_tokenize({k: list(references[k]) for k in keys})
    res = ptb_tokenize({k: [predictions[k]] for k in keys})
    bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
    rouge, _ = Rouge().compute_score(gts, res)
    cider, _ = Cider().compute_score(gts, res)
    return {"bleu1": float(bleu[0]), "bleu2": float(bleu[1]), "bleu3": float(bleu[2]), "bleu4": float(bleu[3]), "rougeL": float(rouge), "cider": float(cider)}
