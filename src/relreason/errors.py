"""The errors relreason raises for bad input, each with a message a person can act on."""

from __future__ import annotations


class RelreasonError(Exception):
    """Base class of every error relreason reports to a user (never a bug).

    The command line prints ``str(error)`` without a traceback and exits with ``exit_code``.
    """

    exit_code: int = 2


class UsageError(RelreasonError):
    """An unknown name or a bad option value (exit code 2)."""


class DataError(RelreasonError):
    """Malformed or missing benchmark data.

    The message names the file, the item (relation key and position, or list index) and the
    field, with what was expected.
    """

    def __init__(
        self,
        file: str,
        message: str,
        *,
        item: str | None = None,
        field: str | None = None,
    ) -> None:
        self.file = file
        self.item = item
        self.field = field
        where = file
        if item is not None:
            where += f", item {item}"
        if field is not None:
            where += f", field '{field}'"
        super().__init__(f"{where}: {message}")


class ChecksumError(DataError):
    """A downloaded or local data file whose SHA-256 is not the pinned one."""


class UnreadableAnswersError(RelreasonError):
    """Strict scoring met outputs it could not read (exit code 1); they are listed for a person."""

    exit_code = 1


class ItemsFailedError(RelreasonError):
    """A run ended with items whose requests failed for good (exit code 3); what finished is
    kept, and a rerun or ``--resume`` redoes only the failed items."""

    exit_code = 3


class ServerUnreachableError(ItemsFailedError):
    """The circuit breaker: several consecutive connection failures stopped the run (exit 3)."""


class InterruptedRunError(RelreasonError):
    """The run was stopped by Ctrl-C or SIGTERM (exit code 130); its folder can be resumed."""

    exit_code = 130
