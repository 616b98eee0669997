"""The one error type our loaders raise: it names what was expected, where, and how to fix it."""


class DataError(RuntimeError):
    """A local data root, a record or an image is missing or malformed."""
