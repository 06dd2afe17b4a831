"""Errors the user can fix (a bad campaign, an unknown target) kept apart from crashes (asv's UserError)."""


class UserError(Exception):
    """A mistake in the input or the setup; printed as one clear message, exit status 2."""


class WorkerError(Exception):
    """A worker failed, died or broke the contract; the point it was running fails with this reason."""

    def __init__(self, message: str, kind: str = "worker"):
        super().__init__(message)
        self.kind = kind
