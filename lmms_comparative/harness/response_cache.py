"""lmms-eval's response cache (``--use_cache DIR``), as the run's record says it: how many of the
run's requests the cache served, and how many it could not (lmms-eval caches only deterministic
requests, ``temperature`` 0 and no sampling: ``lmms_eval/caching/response_cache.py``,
``is_deterministic``), so that a report tells replies read from a cache from replies generated in
this run. The wrapper keeps ``ResponseCache.get_stats()`` as ``finalize`` (which ``simple_evaluate``
calls after the evaluation, before the results are saved) is called; ``harness/stamp_results.py``
puts them in the record (``response_cache``). The counts are this process's: in a run on several
processes, rank 0's, where the results are written."""

from __future__ import annotations

from lmms_comparative.harness.patch import wrap_method

MARK = "_lmms_comparative_cache_stats"
_KEPT = ("hits", "hits_shared", "misses", "skipped_non_deterministic")
_stats: dict[str, int] = {}


def check() -> str | None:
    """None if lmms-eval's ``ResponseCache`` has the ``finalize`` and ``get_stats`` this reads."""
    try:
        from lmms_eval.caching.response_cache import ResponseCache
    except Exception as exc:  # noqa: BLE001 - an lmms-eval without the cache
        return f"lmms_eval.caching.response_cache cannot be imported ({type(exc).__name__})"
    for name in ("finalize", "get_stats"):
        if not callable(getattr(ResponseCache, name, None)):
            return f"ResponseCache has no {name}"
    return None


def install() -> bool:
    """Wrap ``ResponseCache.finalize`` to keep the cache's counts before it closes."""
    try:
        from lmms_eval.caching.response_cache import ResponseCache
    except Exception:  # noqa: BLE001
        return False

    def make(original):
        def finalize(self, *args, **kwargs):
            try:
                found = self.get_stats()
                _stats.clear()
                _stats.update({k: int(found[k]) for k in _KEPT if isinstance(found.get(k), int)})
            except Exception:  # noqa: BLE001 - counts are a note; the cache's own work goes on
                pass
            return original(self, *args, **kwargs)

        return finalize

    return wrap_method("response_cache", ResponseCache, "finalize", MARK, check, make)


def counts() -> dict[str, int]:
    """The cache's counts of this process's run (``hits``, ``misses``, ``skipped_non_deterministic``,
    ``hits_shared``), or {} when no response cache was used."""
    return dict(_stats)
