"""A ``score`` of a --predict_only run's replies: what ``verify`` checks of the generating run's
record that the scored record carries (``predictions.generation``). The replies were decoded by
that run, so its prompt hash must be the installed package's (the replies answer the prompts
re-scored here) and its items, in doc order, the ones the re-score reads. The rest of that record
(its model, package, date, the data copy it read) is the generating run's claim: the report shows
it as one, and a data copy other than the one scored here is said, not failed."""

from __future__ import annotations

from lmms_comparative.data.generating import generation_of


def generation_checks(
    task: str, record: dict, used: dict, variant_prompts: str | None = None
) -> tuple[list[str], list[str]]:
    """The problems and notes of ``task``'s entry in the generating run's record against the
    re-score's entry (``used``: the installed package's prompt hash, the docs' item order). A team's
    variant's prompts are its own: its generating entry is held to the scored record's
    (``variant_prompts``). A task the generating record has no entry for got its replies from
    another file of the same ``score`` (one that names no prompts): nothing to hold it to."""
    generation = generation_of(record)
    tasks = generation.get("tasks") if generation is not None else None
    entry = tasks.get(task) if isinstance(tasks, dict) else None
    if not isinstance(entry, dict):
        return [], []
    where = "the generating (--predict_only) run's record"
    problems = []
    expected, whose = (
        (variant_prompts, "the scored record's")
        if variant_prompts is not None
        else (used.get("prompts"), "the installed package's")
    )
    if entry.get("prompts") != expected:
        problems.append(
            f"{where} has prompt hash {str(entry.get('prompts'))[:12]}..., not {whose} {str(expected)[:12]}...:"
            " the replies answer other prompts than the ones scored"
        )
    items, again = entry.get("items") or {}, used.get("items") or {}
    if not isinstance(items, dict) or (items.get("count"), items.get("order_sha256")) != (
        again.get("count"),
        again.get("order_sha256"),
    ):
        count = items.get("count") if isinstance(items, dict) else None
        problems.append(
            f"{where} names {count} item(s) in an order other than the docs re-scored here"
            f" ({again.get('count')} item(s)): its doc ids are other items"
        )
    notes = []
    data, scored = entry.get("data") or {}, used.get("data") or {}
    if isinstance(data, dict) and data.get("fingerprint") and data.get("fingerprint") != scored.get("fingerprint"):
        notes.append(
            f"generated, as its record claims, on a data copy (fingerprint {str(data.get('fingerprint'))[:12]}...)"
            " other than the one scored here"
        )
    return problems, notes
