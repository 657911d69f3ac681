"""The server under test of one experiment: each start, its readiness, its logs, how it
ended, and the reason read from its log when it died."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from benchdoc.environment import recordable_env
from benchdoc.ledger.metadata import ServerLaunch, ServerStop
from benchdoc.planning.plan import ExperimentSetup, Launch, plan_launch
from benchdoc.redact import redact_argv
from benchdoc.runner.context import RunContext
from benchdoc.runner.events import ServerReady, ServerStarting, WaitingForServer
from benchdoc.runner.failures import FailureReason, explain_failure, known_reason, read_log_tail, setup_problem
from benchdoc.runner.process import ManagedProcess, pick_free_port, wait_until_ready
from benchdoc.runner.survivors import ServerRecords

PORT_POLL_S = 0.5


def port_taken(port: int) -> FailureReason | None:
    """The setup error when a fixed port is held before the server is launched on it."""
    from benchdoc.runner.ports import port_holder

    holder = port_holder(port)
    if holder is None:
        return None
    return FailureReason(
        f"port {port} is already in use ({holder.describe()}): a fixed port serves one run at a time; "
        "wait for that server to stop (run --wait-for-port S), or leave the server's port unset to pick a free one",
        setup=True,
    )


class ServerSession:
    """Starts and stops one experiment's server, once or once per repetition."""

    def __init__(self, context: RunContext, setup: ExperimentSetup, name: str | None = None) -> None:
        self.context = context
        self.setup = setup
        self.name = name or setup.name  # a sweep's server is named after the swept experiment
        self.log_base = context.logs_dir / "unstarted"  # set when the experiment begins
        self.logs: list[Path] = []
        self.ports: list[int] = []
        self.pids: list[int] = []  # each start's process group (its leader's pid), for forensics
        self.ready_s: list[float] = []
        self.stops: list[ServerStop] = []
        self.launch: Launch | None = None
        self.first_argv: tuple[str, ...] | None = None
        self.process: ManagedProcess | None = None
        self.warmed = False  # this start has had its warm-up

    def start(self, tag: str | None = None) -> FailureReason | None:
        """Start the server and wait until it is ready; the reason when it never was."""
        context = self.context
        port = self.setup.server.port or pick_free_port()
        launch = plan_launch(context.config, self.setup, port)
        if self.setup.server.port:
            taken = self._wait_for_port(port)
            if taken is not None:
                self.launch = launch
                return taken
        self.launch = launch
        if self.first_argv is None:
            self.first_argv = launch.argv
        suffix = f".{tag}" if tag else ""
        log = self.log_base.with_name(f"{self.log_base.name}{suffix}.server.log")
        self.logs.append(log)
        self.ports.append(port)
        context.emit(ServerStarting(self.name, tuple(redact_argv(launch.argv)), log, port))
        process = ManagedProcess(
            launch.argv, cwd=launch.cwd, env=launch.full_env(context.environ), stdout_path=log,
            grace_s=launch.shutdown_grace_s, records=ServerRecords.of_project(context.config.root), label=self.name,
        )
        try:
            process.start()
        except OSError as err:  # not found, not executable: the setup is wrong, nothing was measured
            what = err.strerror or str(err)
            return FailureReason(f"cannot start the server: {what}: {err.filename or launch.argv[0]}", setup=True)
        self.process = process
        self.pids.append(process.pid)
        self.warmed = False
        timeout = launch.ready_timeout_s
        readiness = wait_until_ready(
            process, launch.ready_url, timeout,
            on_poll=lambda waited: context.emit(WaitingForServer(self.name, waited, timeout)),
        )
        if readiness.ready:
            self.ready_s.append(round(readiness.waited_s, 3))
            context.emit(ServerReady(self.name, readiness.waited_s, process.pid))
            return None
        if readiness.foreign is not None:
            return FailureReason(
                f"port {port} was taken by another process ({readiness.foreign}); "
                "the server benchdoc started never answered there", setup=True,
            )
        if readiness.last_answer == "HTTP 404" and not readiness.exited:
            return FailureReason(
                f"the readiness URL {launch.ready_url} answered HTTP 404 for {readiness.waited_s:.0f} s: "
                "the server has no such page (check ready_url)", setup=True,
            )
        if readiness.exited:
            setup = setup_problem(read_log_tail(log), readiness.returncode)
            if setup is not None:
                return setup
            fallback = f"server exited with code {readiness.returncode} before becoming ready"
        else:
            answer = f"; {launch.ready_url} last answered: {readiness.last_answer}" if readiness.last_answer else ""
            fallback = f"readiness timeout: not ready within {timeout:g} s{answer}"
        return explain_failure(
            read_log_tail(log), returncode=readiness.returncode, fallback=fallback, patterns=context.patterns
        )

    def _wait_for_port(self, port: int) -> FailureReason | None:
        """The setup error when the fixed port is held, after waiting up to --wait-for-port."""
        taken = port_taken(port)
        wait_s = self.context.options.port_wait_s
        if taken is None or wait_s <= 0:
            return taken
        self.context.notice(self.name, f"port {port} is held by another process: waiting up to {wait_s:g} s for it")
        deadline = time.monotonic() + wait_s
        while taken is not None and time.monotonic() < deadline:
            time.sleep(PORT_POLL_S)
            taken = port_taken(port)
        if taken is None:
            self.context.notice(self.name, f"port {port} is free: starting the server")
            return None
        return FailureReason(f"{taken.reason} (waited {wait_s:g} s)", setup=True)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        result = process.stop()
        self.stops.append(ServerStop(result.returncode, result.killed, result.exited_before_stop))

    def running(self) -> bool:
        return self.process is not None and self.process.running()

    def exit_reason(self, index: int, settle_s: float = 0.0) -> FailureReason | None:
        """The reason, when the server has exited during repetition ``index``
        (waiting up to ``settle_s`` for a process that may be on its way out)."""
        process = self.process
        if process is not None and settle_s > 0 and process.running():
            process.wait(settle_s)
        if process is None or process.running():
            return None
        code = process.returncode
        return explain_failure(
            read_log_tail(self.logs[-1]),
            returncode=code,
            fallback=f"server exited with code {code} during repetition {index + 1}",
            patterns=self.context.patterns,
        )

    def known_reason(self) -> FailureReason | None:
        """A known failure pattern in the latest log, if any (the server may still be running)."""
        return known_reason(read_log_tail(self.logs[-1]), self.context.patterns) if self.logs else None

    def record(self, relative: Callable[[Path], str]) -> ServerLaunch | None:
        """How the server was launched and each start ended, for the run's metadata."""
        launch = self.launch
        if launch is None:
            return None
        return ServerLaunch(
            name=self.setup.server.name,
            argv=tuple(launch.argv),
            env=recordable_env(launch.env, self.setup.server.public_env),
            cwd=relative(launch.cwd),
            ready_url=launch.ready_url,
            ports=tuple(self.ports),
            pids=tuple(self.pids),
            ready_s=tuple(self.ready_s),
            stops=tuple(self.stops),
            restarted_per_repetition=self.context.options.interleave,
        )
