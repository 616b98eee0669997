"""A folder per benchmark (``benchmarks/<name>/``: its record, task YAMLs, hooks, data loader,
scoring, report, fixture). The registry that lists them is ``lmms_comparative.registry``; the
record type and the parts' shapes are ``lmms_comparative.record``."""
