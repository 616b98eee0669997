"""What every patch uses: the lmms-eval version they were checked against, what goes missing
when one cannot install, the one warning line that says so, and the idempotent method wrapper."""

from __future__ import annotations

CHECKED_AGAINST = "0.7.3"
# What will not work when a patch's check fails (the table's last column), for the warning.
WITHOUT = {
    "task_path": 'our tasks are not registered automatically: pass --include_path "$(lmms-comparative include-path)"',
    "fewshot": (
        "--num_fewshot on our tasks reaches lmms-eval, which fails on them instead of stopping with the protocol's "
        "reason"
    ),
    "exit_status": "a run that lmms-eval's CLI catches failing exits 0 again (our own flags still give status 1)",
    "table": "lmms-eval's own table is printed, without the closing summary",
    "side_logs": "CaptionQA's reader answers are not written beside the samples log (the scores are unaffected)",
    "provenance": "the results JSON does not say what produced it (no lmms_comparative key); the scores are unaffected",
    "item_order": (
        "our aggregations see items in the order the ranks gathered them: a run on several processes can differ from "
        "a one-process run (and fail verify) in the last bits"
    ),
    "response_cache": "the record does not say how many replies lmms-eval's response cache (--use_cache) served",
    "capabilities": "the video-input and decoder checks cannot tell the model class: the run goes on",
}
_warned: set[str] = set()


def unpatched(name: str, problem: str) -> None:
    """One warning line, once per process: patch ``name`` is not installed because ``problem``."""
    if name in _warned:
        return
    _warned.add(name)
    from loguru import logger

    logger.warning(
        f"lmms-comparative: the {name} patch is not installed ({problem}; checked against lmms-eval "
        f"{CHECKED_AGAINST}): {WITHOUT[name]}."
    )


def wrap_method(patch: str, owner: type, attr: str, mark: str, check, make) -> bool:
    """Replace ``owner.attr`` by ``make(original)`` once (idempotent: the wrapper carries ``mark``),
    where the patch's ``check()`` holds; else warn (``unpatched``) and leave it. Returns whether
    the wrapper is in place."""
    if getattr(getattr(owner, attr), mark, False):
        return True
    problem = check()
    if problem:
        unpatched(patch, problem)
        return False
    original = getattr(owner, attr)
    wrapper = make(original)
    wrapper.__wrapped__ = original
    setattr(wrapper, mark, True)
    setattr(owner, attr, wrapper)
    return True
