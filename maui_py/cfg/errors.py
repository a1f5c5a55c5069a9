"""Configuration diagnostics: one `ConfigIssue` per finding, `ConfigError` when any is an error.

Every finding names the file, the physical line and the 1-based column of the offending text, so an
editor can jump to it; `str(issue)` uses the familiar compiler layout
`maui.cfg:12:18: error: RESERVATIONDEPTH: 'abc' is not valid (expected <INTEGER>)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True, slots=True)
class ConfigIssue:
    """One error or warning about a configuration file.

    parameter: the canonical parameter as written, with its index and attribute when relevant
    (`QUEUETIMEWEIGHT[batch]`, `USERCFG[john] FSTARGET`); empty when the line names none.
    value: the offending text; expected: the form the value should have ("" when not a value issue).
    """

    file: str
    line: int
    column: int
    parameter: str
    value: str
    expected: str
    message: str
    severity: str = ERROR

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}: {self.severity}: "
        return where + (f"{self.parameter}: " if self.parameter else "") + self.message

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR


class ConfigError(Exception):
    """A configuration that must not be used: `.issues` holds every error, in file order.

    `.warnings` carries the warnings found in the same pass, so a caller can show everything at once.
    The message of a single error is that error's one line (`maui.cfg:3:9: error: FSDECAY: ...`), so a
    command printing it prints one line; several get a count and one indented line each.
    """

    def __init__(self, issues: Iterable[ConfigIssue], warnings: Iterable[ConfigIssue] = ()):
        self.issues = sorted(issues, key=_order)
        self.warnings = sorted(warnings, key=_order)
        count = len(self.issues)
        if count == 1:
            super().__init__(str(self.issues[0]))
            return
        head = f"{count} configuration error{'s' if count != 1 else ''}"
        super().__init__("\n".join([head + ":"] + [f"  {issue}" for issue in self.issues]))

    def one_line(self) -> str:
        """The first error, and how many more there are, on one line (for a command's stderr)."""
        if not self.issues:
            return "configuration error"
        more = len(self.issues) - 1
        return str(self.issues[0]) + (f" (and {more} more error{'s' if more != 1 else ''})" if more else "")


class BadValue(ValueError):
    """Raised by a value type when text does not have its form; `detail` says why, if more is known."""

    def __init__(self, detail: str = ""):
        super().__init__(detail)
        self.detail = detail


def _order(issue: ConfigIssue) -> tuple[str, int, int]:
    return (issue.file, issue.line, issue.column)
