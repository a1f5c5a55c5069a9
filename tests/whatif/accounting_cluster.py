"""The test Slurm (tests/adapters/slurm_cluster.py) with accounting as sites run it: a private
MariaDB (Debian's mariadb-server) and slurmdbd, so `sacct` answers; also the jobcomp/filetxt
log. A subclass in its own directory and ports: the adapter tests' cluster is untouched.

Order: munged, MariaDB (its own datadir, 127.0.0.1 on a free port, a `slurm` user with a
random password made by --init-file), slurmdbd, the cluster, accounts and users in sacctmgr,
then slurmctld and the slurmd's. Every daemon is our child and is stopped by stop().
"""

from __future__ import annotations

import secrets
import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.adapters.slurm_cluster import SlurmCluster, _free_ports

ACCOUNTING_BINARIES = ("mariadbd", "mariadb-install-db", "slurmdbd", "sacctmgr", "sacct")


def missing_accounting_binaries() -> list[str]:
    return [b for b in ACCOUNTING_BINARIES if shutil.which(b) is None
            and not Path("/usr/sbin", b).exists() and not Path("/usr/bin", b).exists()]


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


class AccountingCluster(SlurmCluster):
    """SlurmCluster + slurmdbd/MariaDB + jobcomp/filetxt; `accounts` {account: [users]}."""

    def __init__(self, accounts: dict[str, list[str]], **kw):
        super().__init__(**kw)
        self.accounts = accounts
        self.db_port, self.dbd_port = _free_ports(2)
        self.jobcomp = self.base / "log" / "jobcomp.txt"
        self._db_password = secrets.token_hex(16)

    def _write_config(self) -> None:
        super()._write_config()
        text = self.conf.read_text()
        text = text.replace("AccountingStorageType=accounting_storage/none",
                            "AccountingStorageType=accounting_storage/slurmdbd\n"
                            "AccountingStorageHost=localhost\n"
                            f"AccountingStoragePort={self.dbd_port}\n"
                            # for munge, the "password" is the munge socket (slurm.conf(5))
                            f"AccountingStoragePass={self.base}/munge-sock/munge.sock\n"
                            # as sites with GPUs do: otherwise sacct's TRES omit the gpus
                            "AccountingStorageTRES=gres/gpu")
        text = text.replace("JobCompType=jobcomp/none",
                            f"JobCompType=jobcomp/filetxt\nJobCompLoc={self.jobcomp}")
        self.conf.write_text(text)
        dbd = self.base / "etc" / "slurmdbd.conf"
        dbd.write_text("\n".join([
            "AuthType=auth/munge", f"AuthInfo=socket={self.base}/munge-sock/munge.sock",
            "DbdHost=localhost", f"DbdPort={self.dbd_port}", "SlurmUser=root",
            f"PidFile={self.base}/slurmdbd.pid", f"LogFile={self.base}/log/slurmdbd.log",
            "StorageType=accounting_storage/mysql", "StorageHost=127.0.0.1",
            f"StoragePort={self.db_port}", "StorageUser=slurm",
            f"StoragePass={self._db_password}", "StorageLoc=slurm_acct_db", ""]))
        dbd.chmod(0o600)

    def _start_database(self, timeout: float) -> None:
        data = self.base / "mysql"
        data.mkdir(exist_ok=True)
        subprocess.run(["mariadb-install-db", "--no-defaults", f"--datadir={data}", "--user=root",
                        "--skip-test-db", "--auth-root-authentication-method=socket"],
                       check=True, capture_output=True, timeout=120)
        init = self.base / "etc" / "db-init.sql"
        init.write_text(f"CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY "
                        f"'{self._db_password}';\n"
                        "GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';\n")
        init.chmod(0o600)
        self._daemon(["mariadbd", "--no-defaults", f"--datadir={data}", "--user=root",
                      f"--socket={data}/mysqld.sock", f"--port={self.db_port}",
                      "--bind-address=127.0.0.1", f"--pid-file={data}/mariadbd.pid",
                      f"--init-file={init}", "--innodb-buffer-pool-size=32M",
                      f"--log-error={self.base}/log/mariadb.log"], "mariadb.out")
        self._wait("mariadbd", lambda: _listening(self.db_port), timeout)

    def start(self, timeout: float = 60.0) -> "AccountingCluster":
        t0 = time.monotonic()
        self._write_config()
        self._start_munge(timeout)
        self._start_database(timeout)
        self._daemon(["slurmdbd", "-D"], "slurmdbd.out")
        self._wait("slurmdbd", lambda: _listening(self.dbd_port), timeout)
        self._wait("sacctmgr", lambda: self.run(["sacctmgr", "-i", "add", "cluster", "mauitest"],
                                                check=False).returncode == 0, timeout)
        for account, users in self.accounts.items():
            self.run(["sacctmgr", "-i", "add", "account", account])
            for user in users:
                self.run(["sacctmgr", "-i", "add", "user", user, f"account={account}"])
        return self._start_slurm(t0, timeout)
