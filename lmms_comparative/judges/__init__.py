"""The engine for every LLM call that scoring makes (judges, the CaptionQA reader).

Not built yet: no task in this release needs an LLM after the model under test has answered.
"""
