"""Report files written so that a planted symlink is never followed.

An output folder may be shared (the docs' examples write to a temporary folder) and may have
been created by someone else, who could put in it a link named like a report file
(`jobs.csv`, `index.html`, `whatif.html`) pointing at a file of the user running maui-sim.
Every report file is therefore written to a new file in the same folder, created with
O_CREAT | O_EXCL | O_NOFOLLOW (tempfile.mkstemp), and renamed over the final name:
rename replaces a link itself, never its target, and a half-written report is never seen.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator

_UMASK = os.umask(0o022)
os.umask(_UMASK)


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str], mode: str = "w", newline: str | None = None
              ) -> Iterator[IO]:
    """Open a new file beside `path` for writing; on success it replaces `path` (a link
    there is replaced, not followed), on error it is removed and `path` is untouched.
    The file gets the usual 0666 & ~umask permissions (mkstemp's 0600, widened)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        kwargs = {} if "b" in mode else {"newline": newline, "encoding": "utf-8"}
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """`path.write_text(text)` without following a link at `path` (see replacing)."""
    with replacing(path) as fh:
        fh.write(text)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    with replacing(path, "wb") as fh:
        fh.write(data)
