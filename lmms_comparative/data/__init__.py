"""Loaders for the official release layouts of each benchmark, and fixture builders."""

from lmms_comparative.data.errors import DataError

__all__ = ["DataError"]
