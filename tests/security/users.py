"""Acting as another user from a test: a forked child that drops to that user."""

from __future__ import annotations

import os


def fork_as(user, target, *args) -> tuple[int, int, object]:
    """(pid, the write end of its `go` pipe, a binary reader of its output) of a child that
    became `user` (setgid, setuid, no supplementary groups) and runs target(*args, go, out)
    with the read end of `go` and the write end of its output. Fork it before any thread
    starts (a server's), so that the child inherits none."""
    go_r, go_w = os.pipe()
    out_r, out_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(go_w)
            os.close(out_r)
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            target(*args, go_r, out_w)
            code = 0
        finally:
            os._exit(code)
    os.close(go_r)
    os.close(out_w)
    return pid, go_w, os.fdopen(out_r, "rb")


def finish(pid: int) -> int:
    """The child's exit status, once it has ended."""
    _pid, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
