"""What produced a results file: written into every results JSON of a run that includes our tasks,
under the top-level key ``lmms_comparative`` (``harness/stamp_results.py`` adds it when lmms-eval's
tracker saves the results).

It records, without a timestamp or anything else that differs between 1 and N processes:

- ``package``: this package's version, and the git commit (and whether the tree was modified) when
  it runs from a checkout;
- ``lmms_eval``: lmms-eval's installed version (lmms-eval's own ``lmms_eval_version`` field is the
  git state of the working directory, ``unknown@unknown`` outside a checkout);
- ``python`` and ``libraries``: the interpreter and the key libraries' versions;
- ``settings``: every ``LMMS_COMPARATIVE_*`` variable and every variable of ours that is set
  (data roots, judge and reader settings), never a key;
- ``seeds``: lmms-eval's seeds, and ``limit`` / ``offset`` when set;
- ``llm``: the settings of each judge or reader that scored the run (backend, model, endpoint host,
  temperature, max tokens), never a key; ``llm_answers``: the count and sha256 of the file beside
  the results that logs every answer they gave (``<date>_llm_answers.jsonl``: prefix, answer key,
  text), from which ``verify`` re-scores the judged tasks without calling an endpoint;
- ``predictions`` (a ``lmms-comparative score`` run): each prediction file's path, format and
  sha256 (a folder of samples logs: its fingerprint);
- ``tasks``: per task of ours, its benchmark, its data (``source``: ``hub`` with the repository and
  the commit pinned, or ``local`` with the root and its variable; ``fingerprint``: a sha256 over
  the paths, sizes and contents of the files under the data root; ``generated``: the marker of data
  this package made up, ``data/generated.py``), its item set (``count``, and ``sha256`` of the sorted
  item keys scored) and ``prompts`` (a sha256 of the benchmark's prompt module and the task's YAML).

The data the loaders found is recorded while they run (``note_local``, ``note_hub``); engines record
their settings when they are built (``note_llm``). Nothing here imports lmms-eval.

What each module holds: ``data_sources`` (the data each loader read, a task's data record and item
set), ``data_fingerprint`` (the fingerprint of a data folder), ``hash_cache`` (the SQLite cache of its
file hashes), ``llm_answers`` (the answers log), ``settings_record`` (versions, variables, judge and
reader settings) and ``prompt_hash`` (a task's prompt hash). This face re-exports their public names.
"""

from __future__ import annotations

from lmms_comparative.provenance import data_fingerprint, data_sources, llm_answers, settings_record
from lmms_comparative.provenance.data_fingerprint import HASH_WORKERS, file_sha256, fingerprint
from lmms_comparative.provenance.data_sources import data_of, item_set, note_hub, note_local, source
from lmms_comparative.provenance.hash_cache import hash_cache_path
from lmms_comparative.provenance.llm_answers import (
    ANSWERS_ENV,
    answer_key,
    load_answers,
    logged_answers,
    note_answers,
)
from lmms_comparative.provenance.prompt_hash import GENERATED_LINE, prompts_sha256
from lmms_comparative.provenance.settings_record import (
    LIBRARIES,
    environment,
    llm_settings,
    note_llm,
    package,
    settings,
)

KEY = "lmms_comparative"
# The record's layout version. 2: the data fingerprint hashes every file's content (1: images and
# videos counted by path and size only), so a schema-1 fingerprint is not comparable with a later one.
SCHEMA = 2

__all__ = [
    "ANSWERS_ENV",
    "GENERATED_LINE",
    "HASH_WORKERS",
    "KEY",
    "LIBRARIES",
    "SCHEMA",
    "answer_key",
    "data_of",
    "end_of_run",
    "environment",
    "file_sha256",
    "fingerprint",
    "hash_cache_path",
    "item_set",
    "llm_settings",
    "load_answers",
    "logged_answers",
    "note_answers",
    "note_hub",
    "note_llm",
    "note_local",
    "package",
    "prompts_sha256",
    "reset",
    "settings",
    "source",
]


def end_of_run() -> None:
    """Forget the judges' and readers' settings and answers of the run just written: the next entry
    of a ``--config`` file runs in this process and must record only its own."""
    settings_record.forget()
    llm_answers.forget()


def reset() -> None:
    """Forget what was noted (tests run several runs in one process)."""
    data_sources.forget()
    settings_record.forget()
    llm_answers.forget()
    data_fingerprint.forget()
