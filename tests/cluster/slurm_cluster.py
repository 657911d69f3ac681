"""A throwaway single-node Slurm cluster for tests: munged, slurmctld and slurmd as root,
with accounting (slurmdbd over a private MariaDB server) so that `sacct` answers.

Uses Debian's packages (`slurmctld`, `slurmd`, `slurm-client`, `munge`, `slurmdbd`,
`mariadb-server`; `scripts/test` installs them when missing). Everything lives in a
temporary folder: a munge key and socket, a `slurm.conf` and `slurmdbd.conf` with their
own ports, a `gres.conf` declaring four GPUs over empty files (a real cluster needs no
such stand-ins), the database, state and spool folders and the daemons' logs. Client
commands find the cluster through `SLURM_CONF`, which :class:`SlurmCluster` gives as
``env``. Jobs left are cancelled, and the daemons stopped by their pids, at the end.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PARTITION = "bench"
DAEMONS = (
    "munged", "slurmctld", "slurmd", "slurmdbd", "mariadbd", "mariadb-install-db", "mariadb",
    "sbatch", "squeue", "scontrol", "sinfo", "scancel", "sacct", "sacctmgr",
)

SLURM_CONF = """\
ClusterName=benchdoc-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={folder}/munge/munge.socket
CredType=cred/munge
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/slurmctld.log
SlurmdLogFile={folder}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
{accounting}JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
ReturnToService=2
MinJobAge=3600
KillWait=10
OverTimeLimit=0
InactiveLimit=0
SlurmdParameters=config_overrides
NodeName={host} NodeAddr=127.0.0.1 CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=2000 Gres=gpu:4 State=UNKNOWN
PartitionName={partition} Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


ACCOUNTING = """\
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort={dbd_port}
AccountingStoragePass={folder}/munge/munge.socket
"""
NO_ACCOUNTING = "AccountingStorageType=accounting_storage/none\n"

SLURMDBD_CONF = """\
AuthType=auth/munge
AuthInfo=socket={folder}/munge/munge.socket
DbdAddr=127.0.0.1
DbdHost={host}
DbdPort={dbd_port}
SlurmUser=root
PidFile={folder}/slurmdbd.pid
LogFile={folder}/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort={db_port}
StorageUser=slurm
StoragePass={db_password}
StorageLoc=slurm_acct_db
"""


@dataclass(frozen=True)
class SlurmCluster:
    """A running test cluster: its folder, its partition and the environment clients need."""

    folder: Path
    partition: str
    conf: Path

    @property
    def env(self) -> dict[str, str]:
        return {"SLURM_CONF": str(self.conf)}

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """A Slurm client command against this cluster."""
        return subprocess.run(list(argv), env={**os.environ, **self.env}, capture_output=True, text=True,
                              timeout=60, check=check)

    def logs(self) -> str:
        parts = []
        for name in ("client.log", "slurmctld.log", "slurmd.log", "slurmdbd.log", "mariadb.log", "munged.log"):
            path = self.folder / name
            if path.exists():
                parts.append(f"--- {name}\n" + path.read_text(errors="replace")[-4000:])
        return "\n".join(parts)


def missing_programs() -> list[str]:
    return [name for name in DAEMONS if shutil.which(name) is None]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


@contextmanager
def slurm_cluster(accounting: bool = True) -> Iterator[SlurmCluster]:
    """Start munged, slurmctld and slurmd (as root) on a private configuration, and with
    ``accounting`` MariaDB and slurmdbd; yield the cluster once `sinfo` shows its node
    idle; cancel what is left and stop the daemons by pid afterwards."""
    if os.geteuid() != 0:
        raise RuntimeError("the Slurm test cluster starts its daemons as root")
    missing = missing_programs()
    if missing:
        raise RuntimeError(f"Slurm programs not found: {', '.join(missing)} (install slurmctld slurmd slurm-client munge)")
    folder = Path(tempfile.mkdtemp(prefix="benchdoc-slurm-"))
    os.chmod(folder, 0o755)  # job steps run as root, but munged checks its folders' modes
    for sub in ("munge", "state", "spool", "gpus"):
        (folder / sub).mkdir(mode=0o700 if sub == "munge" else 0o755)
    for index in range(4):
        (folder / "gpus" / f"gpu{index}").touch()
    key = folder / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    os.chmod(key, 0o400)
    host = socket.gethostname().split(".")[0]
    conf = folder / "slurm.conf"
    dbd_port, db_port, db_password = _free_port(), _free_port(), os.urandom(8).hex()
    storage = ACCOUNTING.format(dbd_port=dbd_port, folder=folder) if accounting else NO_ACCOUNTING
    conf.write_text(SLURM_CONF.format(host=host, folder=folder, partition=PARTITION, accounting=storage,
                                      ctld_port=_free_port(), slurmd_port=_free_port()))
    dbd_conf = folder / "slurmdbd.conf"  # slurmdbd reads it beside SLURM_CONF; it must be private
    dbd_conf.write_text(SLURMDBD_CONF.format(host=host, folder=folder, dbd_port=dbd_port, db_port=db_port,
                                             db_password=db_password))
    os.chmod(dbd_conf, 0o600)
    (folder / "gres.conf").write_text(f"AutoDetect=off\nName=gpu File={folder}/gpus/gpu[0-3]\n")
    cluster = SlurmCluster(folder=folder, partition=PARTITION, conf=conf)
    env = {**os.environ, **cluster.env}
    pids: list[int | None] = []
    reaper: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run(
            ["munged", "--force", f"--socket={folder}/munge/munge.socket", f"--key-file={key}",
             f"--pid-file={folder}/munge/munged.pid", f"--log-file={folder}/munged.log",
             f"--seed-file={folder}/munge/munged.seed"],
            check=True, capture_output=True, timeout=30,
        )
        pids.append(_wait_pid(folder / "munge" / "munged.pid"))
        if accounting:
            pids.append(_start_mariadb(folder, db_port, db_password))
            subprocess.run(["slurmdbd"], env=env, check=True, capture_output=True, timeout=30)
            pids.append(_wait_pid(folder / "slurmdbd.pid"))
            _wait_for(lambda: _answers(cluster, "sacctmgr", "-n", "list", "cluster"), "slurmdbd never answered", cluster)
            cluster.run("sacctmgr", "-i", "add", "cluster", "benchdoc-test")
        subprocess.run(["slurmctld", "-i", "-f", str(conf)], env=env, check=True, capture_output=True, timeout=30)
        pids.append(_wait_pid(folder / "slurmctld.pid"))
        subprocess.run(["slurmd", "-f", str(conf)], env=env, check=True, capture_output=True, timeout=30)
        pids.append(_wait_pid(folder / "slurmd.pid"))
        reaper = _start_reaper(folder, [pid for pid in pids if pid is not None])
        _wait_idle(cluster)
        yield cluster
    except subprocess.CalledProcessError as exc:
        raise RuntimeError(f"{exc.cmd[0]} failed: {exc.stderr or exc.stdout}\n{cluster.logs()}") from exc
    finally:
        try:
            if len(pids) == (5 if accounting else 3):
                _cancel_everything(cluster)
        finally:
            _stop_all([pid for pid in pids if pid is not None])
            if reaper is not None:
                _stop_all([reaper.pid])
                reaper.wait()
            shutil.rmtree(folder, ignore_errors=True)


# Run beside the tests: when the test process is gone without tearing the cluster down
# (killed by a timeout, say), stop the daemons by their pids and remove the folder.
_REAPER = """\
import os, shutil, signal, sys, time
owner, folder, pids = int(sys.argv[1]), sys.argv[2], [int(p) for p in sys.argv[3:]]
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
while alive(owner):
    time.sleep(1)
for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 0)):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + wait
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
shutil.rmtree(folder, ignore_errors=True)
"""


def _start_reaper(folder: Path, pids: list[int]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", _REAPER, str(os.getpid()), str(folder), *map(str, pids)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )


def _stop_all(pids: list[int], grace_s: float = 10.0) -> None:
    """SIGTERM every daemon at once, SIGKILL whatever still runs after ``grace_s``."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.1)
    for pid in pids:
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _cancel_everything(cluster: SlurmCluster, timeout_s: float = 20.0) -> None:
    """Cancel the cluster's jobs and wait until they are gone: a job step outlives slurmd."""
    cluster.run("scancel", "--full", "--partition", cluster.partition, check=False)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        left = cluster.run("squeue", "-h", "-o", "%i", check=False)
        if left.returncode != 0 or not left.stdout.strip():
            return
        time.sleep(0.5)


def _start_mariadb(folder: Path, port: int, password: str) -> int | None:
    """A private MariaDB server on loopback for slurmdbd, with a user 'slurm'; its pid."""
    data = folder / "mysql"
    subprocess.run(["mariadb-install-db", "--no-defaults", f"--datadir={data}", "--user=root",
                    "--auth-root-authentication-method=normal", "--skip-test-db"],
                   check=True, capture_output=True, timeout=120)
    sock = folder / "mysql.sock"
    subprocess.Popen(
        ["mariadbd", "--no-defaults", f"--datadir={data}", "--user=root", f"--socket={sock}", f"--port={port}",
         "--bind-address=127.0.0.1", f"--pid-file={folder}/mariadb.pid", f"--log-error={folder}/mariadb.log"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    grant = f"CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '{password}'; GRANT ALL ON *.* TO 'slurm'@'127.0.0.1';"
    deadline = time.monotonic() + 60
    while True:
        done = subprocess.run(["mariadb", "--no-defaults", "-S", str(sock), "-u", "root", "-e", grant],
                              capture_output=True, text=True, timeout=30)
        if done.returncode == 0:
            return _wait_pid(folder / "mariadb.pid")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the test cluster's MariaDB never answered: {done.stderr.strip()}")
        time.sleep(0.3)


def _answers(cluster: SlurmCluster, *argv: str) -> bool:
    done = cluster.run(*argv, check=False)
    if done.returncode != 0:
        cluster.folder.joinpath("client.log").write_text(done.stderr + done.stdout)
    return done.returncode == 0


def _wait_for(ready: Callable[[], bool], failure: str, cluster: SlurmCluster, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not ready():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{failure}\n{cluster.logs()}")
        time.sleep(0.3)


def _wait_pid(path: Path, timeout_s: float = 30.0) -> int | None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pid = _read_pid(path)
        if pid is not None:
            return pid
        time.sleep(0.1)
    return None


def _wait_idle(cluster: SlurmCluster, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    state = ""
    while time.monotonic() < deadline:
        done = cluster.run("sinfo", "-h", "-o", "%T", check=False)
        state = done.stdout.strip()
        if done.returncode == 0 and state == "idle":
            return
        time.sleep(0.5)
    raise RuntimeError(f"the test cluster's node never became idle (sinfo says {state!r})\n{cluster.logs()}")
