"""The report's Verification table: each run's ``verify`` verdict (or why there is none), the data
it read, whether its items are the release's, and its protocol; the notes under the table on a
run's variant tasks, replies generated apart and response cache."""

from __future__ import annotations

from lmms_comparative.data.generating import generation_of
from lmms_comparative.data.untrusted import printable
from lmms_comparative.registry import BENCHMARKS, BY_NAME
from lmms_comparative.report.run_folders import verify_state
from lmms_comparative.reportlib.marks import code, kind
from lmms_comparative.reportlib.runs import Run, claimed_version, generated_by, overrides
from lmms_comparative.subsets import by_count_only, subset_of_tasks


def verification_of(run: Run) -> str:
    """A run's verification in one phrase: verify's verdict while every file of the run is the one
    it checked, else why there is none; a verdict file not made here is shown as the claim it is."""
    state = verify_state(run)
    verified = run.verified
    if state == "no provenance":
        return "no provenance (not a run of lmms-comparative's tasks, or made before provenance)"
    if state == "not verified" or verified is None:
        return f"not verified (run `lmms-comparative verify` on its folder{_with_variables(run)})"
    if state == "STALE":
        changed = verified.get("changed") or []
        since = (
            "`lmms-comparative verify` checked the run"
            if verified.get("made_here") is True
            else "the verdict file that came with the run was written (not made here)"
        )
        return f"STALE: {', '.join(changed[:3])}{' ...' if len(changed) > 3 else ''} changed after {since}"
    if verified.get("made_here") is not True:  # a verdict that came with the folder: the submitter's word
        return (
            f"{state} (its verdict file was not made by `lmms-comparative verify` on this machine: "
            f"run it on the folder{_with_variables(run)})"
        )
    tasks = verified.get("tasks") or {}
    counts = {s: sum(1 for t in tasks.values() if t.get("status") == s) for s in ("PASS", "FAIL", "UNVERIFIED")}
    detail = ", ".join(f"{n} {s.lower()}" for s, n in counts.items() if n)
    return f"{verified.get('verdict')} ({detail})"


def _with_variables(run: Run) -> str:
    """The data variables ``verify`` needs set to re-score the run: those of the local copies it
    read (only the names this package reads: the record is a stranger's text)."""
    known = {b.root_variable for b in BENCHMARKS if b.root_variable}
    tasks = ((run.results.get("lmms_comparative") or {}).get("tasks") or {}).values()
    found = sorted(
        known.intersection(
            d.get("variable")
            for d in ((t.get("data") or {}) for t in tasks if isinstance(t, dict))
            if d.get("source") == "local"
        )
    )
    return f", with {', '.join(found)} set to the data the run read" if found else ""


def protocol_of(run: Run, in_table: bool = False) -> str:
    """The run's protocol in a phrase: the tasks' own, or the overrides its command line gave."""
    found = overrides(run.results)
    if not found:
        return "the tasks' own"
    return "overridden: " + ", ".join(code(f"--{k} {v}", in_table=in_table) for k, v in found.items())


def run_subsets(run: Run, benchmarks) -> dict[str, str | None]:
    """Per benchmark the run has tasks of, why its items are not the release's (None: they are)."""
    found = {}
    for benchmark in benchmarks:
        own = _own_tasks(run, benchmark)
        if own:
            found[benchmark.name] = subset_of_tasks(run, benchmark, own)
    return found


def _own_tasks(run: Run, benchmark) -> list[str]:
    """The tasks and groups of the run's results that ``benchmark`` owns."""
    return [t for t in run.results.get("results") or {} if benchmark.owns_task(t)]


def count_only(run: Run, subsets: dict[str, str | None]) -> list[str]:
    """The benchmarks whose items this run holds as the release by item count alone: no reason
    to call them a subset, and no key list here to check them against (``subsets.by_count_only``)."""
    return [
        name
        for name, reason in subsets.items()
        if reason is None and by_count_only(run, BY_NAME[name], _own_tasks(run, BY_NAME[name]))
    ]


def _items(run: Run, subsets: dict[str, str | None]) -> str:
    by_count = count_only(run, subsets)
    shown = []
    for name, reason in subsets.items():
        release = "the release" + (" by item count (keys not checked)" if name in by_count else "")
        shown.append(f"{BY_NAME[name].title}: {kind(reason) or release}")
    return "; ".join(shown) or "-"


def verification_table(runs: list[Run], subsets: dict[str, dict]) -> list[str]:
    """The report's verification table: each run's verify verdict, data sources and whether its
    items are the release's (each table's footnotes say why not)."""
    lines = [
        "## Verification",
        "",
        "Runs are named by the model their `--model_args` name (a score of a --predict_only run's replies: the "
        "generating run's): the submitter's claim, which `verify` cannot check. Protocol: the decoding and prompts "
        "the tasks set (the papers'), or what the run's command line overrode (the generating run's included). "
        'Items: "the release by item count" where the release\'s key list is not known here and the run read a '
        "local copy, so only the count is checked.",
        "",
        "| run | verify | data | items | protocol |",
        "|---|---|---|---|---|",
    ]
    for run in runs:
        record = run.results.get("lmms_comparative") or {}
        sources = sorted(
            {
                (d.get("repo") and f"{d['repo']}@{str(d.get('commit'))[:8]}")
                or (d.get("variable") and f"{d['variable']} (fingerprint {str(d.get('fingerprint'))[:8]})")
                or "?"
                for d in ((t.get("data") or {}) for t in (record.get("tasks") or {}).values())
            }
        )
        lines.append(
            f"| {code(run.name, in_table=True)} | {verification_of(run)} | {', '.join(sources) or '-'} "
            f"| {_items(run, subsets[run.name])} | {protocol_of(run, in_table=True)} |"
        )
    variants = [
        f"- {code(run.name)}: {code(task)} is a variant of {code(entry['variant_of'])} (a task of the run's own "
        "that builds on ours; its prompts and decoding are its own): `verify` re-scores it as one, the paper's "
        "tables do not show it"
        for run in runs
        for task, entry in sorted(((run.results.get("lmms_comparative") or {}).get("tasks") or {}).items())
        if isinstance(entry, dict) and isinstance(entry.get("variant_of"), str)
    ]
    variants += [line for run in runs if (line := _generated_apart(run))]
    variants += [line for run in runs if (line := _cached(run))]
    return lines + ([""] + variants if variants else []) + [""]


def _cached(run: Run) -> str | None:
    """For a run with lmms-eval's ``--use_cache``: how many requests its response cache served (the
    run's claim), and that it serves deterministic requests only; None for any other run."""
    counts = (run.results.get("lmms_comparative") or {}).get("response_cache")
    if not isinstance(counts, dict):
        return None
    number = lambda key: (
        counts.get(key) if isinstance(counts.get(key), int) and not isinstance(counts.get(key), bool) else "?"
    )  # noqa: E731
    return (
        f"- {code(run.name)}: run with lmms-eval's `--use_cache`: {number('hits')} request(s) answered from its "
        f"response cache, {number('misses')} by the model, "
        f"{number('skipped_non_deterministic')} not cacheable (sampled, temperature above 0: generated anew); "
        "the run's claim"
    )


def _generated_apart(run: Run) -> str | None:
    """For a ``score`` of a --predict_only run's replies: what the generating run claims (its
    model, its package version), which ``verify`` cannot check; None for any other run."""
    generation = generation_of(run.results.get("lmms_comparative"))
    if generation is None:
        return None
    claims = generated_by(run.results)
    model = " ".join(printable(str(claims.get("model_args") or claims.get("model") or "?")).split())[:200]
    version = claimed_version(generation)
    return (
        f"- {code(run.name)}: replies generated apart, by a --predict_only run whose results name the model "
        f"{code(model)} and lmms-comparative {code(version)}:"
        " that run's claims; `verify` checks that its prompts are the installed package's and its items the ones "
        "scored, not which model answered"
    )
