"""benchdoc's client beside SGLang's (``sglang.bench_serving``) and a bare aiohttp loop, in one run.

Used by ``client_capacity.py --sglang-python PATH``, where PATH is the Python of a venv that
holds SGLang (it is never a dependency of benchdoc). Against the simulator, one process per
regime pinned to one core (``taskset``), each client is a long-lived process pinned to the
other core, so start-up (SGLang's import of PyTorch takes seconds) stays outside the figures:

- **benchdoc**: ``run_workload`` with every client setting at its default (so uvloop where
  installed, the lean reader, the default number of workers);
- **sglang**: ``sglang.bench_serving``'s own benchmark, as ``python -m sglang.bench_serving
  --backend sglang-oai --dataset-name random --random-input-len 16 --random-output-len 256
  --random-range-ratio 1.0 --request-rate inf --num-prompts N --max-concurrency C`` runs it,
  with a small local tokenizer and prompt file (nothing downloaded) and no warm-up request (benchdoc's
  default has none either);
- **bare**: an aiohttp loop that reads, stamps and counts events, on asyncio.

Six cells, zero-latency and tokens paced 10 ms apart, at 1, 64 and 256 streams; every
repeat runs every cell, and in each cell the three clients in an order rotated from cell
to cell and repeat to repeat. The figure is output chunks per second of the client's CPU
time (user + system) over its benchmark call; the ratios are taken within a repeat, so
they are of clients measured side by side, and their range over the repeats is given.
TTFT error (paced cells): a client's mean TTFT less the server's own mean TTFT of the same
requests (the simulator's stamps, summed on its /metrics page around each client's run).
Each cell also keeps the highest one-minute load average seen while it ran.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUTPUT_TOKENS = 256
INPUT_TOKENS = 16
CELLS: tuple[tuple[str, int], ...] = tuple((r, n) for r in ("zero", "paced") for n in (1, 64, 256))
# Requests per stream: about 50,000 to 130,000 chunks a zero-latency cell; a paced single
# stream runs 12 requests (about 30 s): with 4, each client spent 0.15 to 0.4 CPU-seconds
# and SGLang's own figure moved by a quarter between repeats.
PER_STREAM = {("zero", 1): 200, ("zero", 64): 6, ("zero", 256): 2, ("paced", 1): 12, ("paced", 64): 1, ("paced", 256): 1}
CLIENTS = ("benchdoc", "sglang", "bare")
PACED_STEP_MS = 10.0

# Runs in SGLang's Python: imports its client once, then one benchmark per line of JSON on
# stdin ({"argv": [...]}), answering each with one line of JSON on stdout.
SGLANG_WORKER = r'''
import contextlib, io, json, os, resource, sys, time
core = os.environ.get("BENCH_CLIENT_CORE")
if core:
    os.sched_setaffinity(0, {int(core)})
out = sys.stdout
with contextlib.redirect_stdout(io.StringIO()):
    from sglang.benchmark import serving as bs
    import sglang
done = {}
original = bs.benchmark
async def timed(*args, **kwargs):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu0, wall0 = usage.ru_utime + usage.ru_stime, time.perf_counter()
    result = await original(*args, **kwargs)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    done["cpu_s"] = usage.ru_utime + usage.ru_stime - cpu0
    done["wall_s"] = time.perf_counter() - wall0
    done["result"] = result
    return result
bs.benchmark = timed
out.write(json.dumps({"ready": True, "version": sglang.__version__}) + "\n")
out.flush()
for line in sys.stdin:
    job = json.loads(line)
    done.clear()
    sys.argv = ["bench_serving", *job["argv"]]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            bs.cli_main()
    except BaseException as err:
        out.write(json.dumps({"error": f"{type(err).__name__}: {err}"}) + "\n")
        out.flush()
        continue
    result = done["result"]
    ok = [i for i, e in enumerate(result["errors"]) if not e]
    chunks = sum((1 if result["ttfts"][i] > 0 else 0) + len(result["itls"][i]) for i in ok)
    ttfts = [result["ttfts"][i] * 1000.0 for i in ok]
    out.write(json.dumps({"chunks": chunks, "cpu_s": done["cpu_s"], "wall_s": done["wall_s"],
                          "failed": len(result["errors"]) - len(ok),
                          "ttft_ms_mean": sum(ttfts) / len(ttfts) if ttfts else None}) + "\n")
    out.flush()
'''


@dataclass
class Sample:
    """One client's run of one cell in one repeat."""

    client: str
    regime: str
    streams: int
    repeat: int
    chunks: int
    cpu_s: float
    wall_s: float
    failed: int
    ttft_error_ms: float | None = None
    bound: bool | None = None
    verdict: str | None = None
    load_1m: float = 0.0

    @property
    def per_cpu_s(self) -> float:
        return self.chunks / self.cpu_s if self.cpu_s > 0 else 0.0


@dataclass
class Outcome:
    samples: list[Sample] = field(default_factory=list)
    sglang_version: str = ""
    cores: tuple[int | None, int | None] = (None, None)
    load_start: float = 0.0
    load_end: float = 0.0


def cores() -> tuple[int | None, int | None]:
    """(the clients' core, the server's core): different ones when there are two or more."""
    if not hasattr(os, "sched_getaffinity"):
        return None, None
    found = sorted(os.sched_getaffinity(0))
    return (found[-1], found[0]) if len(found) > 1 else (found[0], None)


def _pinned(core: int | None, argv: list[str]) -> list[str]:
    taskset = shutil.which("taskset")
    return [taskset, "-c", str(core), *argv] if core is not None and taskset else argv


@contextlib.contextmanager
def simulator(step_ms: float, core: int | None) -> Iterator[str]:
    """The simulator in its own process pinned to ``core``; yields its URL."""
    from benchdoc.childenv import child_environment
    from benchdoc.sim.faults import READY_MARK

    argv = _pinned(core, [sys.executable, "-m", "benchdoc", "sim", "--host", "127.0.0.1", "--port", "0",
                          "--ttft-ms", "0", "--step-ms", f"{step_ms:g}", "--max-running", "4096"])
    proc = subprocess.Popen(argv, env=child_environment(os.environ), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            if READY_MARK in line:
                url = line.split(READY_MARK, 1)[1].strip()
        if url is None:
            raise RuntimeError("the simulator did not start")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def server_ttft(url: str) -> tuple[float, float]:
    """(sum of the server's own TTFTs in seconds, their count), from its /metrics page."""
    with urllib.request.urlopen(url + "/metrics", timeout=10) as page:
        text = page.read().decode()
    total = count = 0.0
    for line in text.splitlines():
        if line.startswith("vllm:time_to_first_token_seconds_sum"):
            total = float(line.rsplit(" ", 1)[1])
        elif line.startswith("vllm:time_to_first_token_seconds_count"):
            count = float(line.rsplit(" ", 1)[1])
    return total, count


def write_tokenizer(folder: Path) -> Path:
    """A small byte-level BPE tokenizer trained here (nothing downloaded), as a folder
    ``transformers`` loads: SGLang's random dataset draws its prompts' tokens from it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    corpus = ["the quick brown fox jumps over the lazy dog", "a server under load queues requests",
              "speculative decoding drafts a few tokens and verifies them in one step"] * 20
    tokenizer = Tokenizer(models.BPE(unk_token=None))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(corpus, trainer)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "<|endoftext|>", "model_max_length": 4096}))
    return folder


def write_conversations(path: Path) -> Path:
    """A small ShareGPT-layout file: SGLang's random dataset cuts its prompts from one
    (by default it downloads ShareGPT; nothing is downloaded here)."""
    words = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "while", "a", "server", "under", "load", "queues", "requests"]
    rows = [{"conversations": [{"from": "human", "value": " ".join(words[i % 5:] + words[: i % 5])},
                               {"from": "gpt", "value": " ".join(words)}]} for i in range(1024)]
    path.write_text(json.dumps(rows))
    return path


class SGLangClient:
    """SGLang's benchmark client in its own long-lived process (its imports paid once)."""

    def __init__(self, python: str, core: int | None, workdir: Path) -> None:
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env["HF_HUB_OFFLINE"] = "1"  # nothing is fetched: the tokenizer and prompts are local
        if core is not None:
            env["BENCH_CLIENT_CORE"] = str(core)
        self.workdir = workdir
        self.tokenizer = write_tokenizer(workdir / "tokenizer")
        self.conversations = write_conversations(workdir / "conversations.json")
        self.proc = subprocess.Popen([python, "-c", SGLANG_WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, cwd=workdir, env=env)
        hello = self._answer()
        self.version = str(hello.get("version", ""))

    def _answer(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"SGLang's client ended (exit code {self.proc.wait()}); is sglang installed in that venv?")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"SGLang's bench_serving failed: {answer['error']}")
        return answer

    def run(self, url: str, streams: int, requests: int) -> dict[str, Any]:
        argv = ["--backend", "sglang-oai", "--base-url", url, "--tokenizer", str(self.tokenizer),
                "--dataset-name", "random", "--dataset-path", str(self.conversations), "--random-input-len", str(INPUT_TOKENS),
                "--random-output-len", str(OUTPUT_TOKENS), "--random-range-ratio", "1.0",
                "--num-prompts", str(requests), "--max-concurrency", str(streams), "--request-rate", "inf",
                "--warmup-requests", "0", "--output-file", str(self.workdir / "sglang.jsonl"), "--output-details"]
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"argv": argv}) + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _benchdoc_job(url: str, streams: int, requests: int) -> dict[str, Any]:
    from benchdoc.workloads import Timeouts, WorkloadSpec, run_workload

    spec = WorkloadSpec(url=url, concurrency=streams, requests=requests, input_tokens=INPUT_TOKENS,
                        output_tokens=OUTPUT_TOKENS, metrics_url="",
                        timeouts=Timeouts(connect_s=30, first_token_s=120, idle_s=60))
    cpu0, wall0 = _cpu(), time.perf_counter()
    result = run_workload(spec)
    cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
    ttfts = [r.ttft_ms for r in result.records if r.ok and r.ttft_ms is not None]
    client = result.client
    return {"chunks": sum(len(r.chunk_ms) for r in result.records), "cpu_s": cpu, "wall_s": wall,
            "failed": len(result.failures), "ttft_ms_mean": statistics.fmean(ttfts) if ttfts else None,
            "bound": client.bound if client else None, "verdict": client.sentence() if client else None,
            "event_loop": result.provenance.get("event_loop"), "http_client": result.provenance.get("http_client")}


def _bare_job(url: str, streams: int, requests: int) -> dict[str, Any]:
    import client_capacity

    return client_capacity._bare_job(url, streams, requests, None)


def _cpu() -> float:
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _serve(jobs: Any, answers: Any, core: int | None) -> None:
    """A long-lived client process: runs each job it is given, answers with its figures."""
    if core is not None:
        os.sched_setaffinity(0, {core})
    sys.path.insert(0, str(Path(__file__).parent))
    import aiohttp  # noqa: F401  (imports are not per-chunk work)

    import benchdoc.workloads.client  # noqa: F401
    import benchdoc.workloads.lean_reader  # noqa: F401
    import benchdoc.workloads.workers  # noqa: F401
    from benchdoc.workloads.loops import default_event_loop, event_loop_factory

    event_loop_factory(default_event_loop())  # imports uvloop where it is the default

    targets = {"benchdoc": _benchdoc_job, "bare": _bare_job}
    for kind, url, streams, requests in iter(jobs.get, None):
        try:
            answers.put(targets[kind](url, streams, requests))
        except Exception as err:  # the parent reports it and stops
            answers.put({"error": f"{type(err).__name__}: {err}"})


class LocalClient:
    """benchdoc's client or the bare loop in a long-lived process of this Python."""

    def __init__(self, core: int | None) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.jobs, self.answers = context.Queue(), context.Queue()
        self.proc = context.Process(target=_serve, args=(self.jobs, self.answers, core))
        self.proc.start()

    def run(self, kind: str, url: str, streams: int, requests: int) -> dict[str, Any]:
        self.jobs.put((kind, url, streams, requests))
        answer: dict[str, Any] = self.answers.get(timeout=900)
        if "error" in answer:
            raise RuntimeError(f"{kind} failed: {answer['error']}")
        return answer

    def close(self) -> None:
        self.jobs.put(None)
        self.proc.join(timeout=30)


def _one(client: str, regime: str, streams: int, repeat: int, url: str, local: LocalClient,
         sglang: SGLangClient) -> Sample:
    requests = streams * PER_STREAM[(regime, streams)]
    before = server_ttft(url)
    load = os.getloadavg()[0]
    data = sglang.run(url, streams, requests) if client == "sglang" else local.run(client, url, streams, requests)
    after = server_ttft(url)
    served = after[1] - before[1]
    error = None
    if data.get("ttft_ms_mean") is not None and served > 0:
        error = data["ttft_ms_mean"] - (after[0] - before[0]) * 1000.0 / served
    return Sample(client, regime, streams, repeat, int(data["chunks"]), float(data["cpu_s"]), float(data["wall_s"]),
                  int(data["failed"]), error, data.get("bound"), data.get("verdict"), max(load, os.getloadavg()[0]))


def measure(sglang_python: str, repeats: int, progress: Any = None) -> Outcome:
    """Every cell, ``repeats`` times, the three clients rotated; see the module's docstring."""
    client_core, server_core = cores()
    outcome = Outcome(cores=(client_core, server_core), load_start=os.getloadavg()[0])
    with tempfile.TemporaryDirectory() as tmp, simulator(0.0, server_core) as zero, \
            simulator(PACED_STEP_MS, server_core) as paced:
        sglang = SGLangClient(sglang_python, client_core, Path(tmp))
        local = LocalClient(client_core)
        outcome.sglang_version = sglang.version
        try:
            turn = 0
            for repeat in range(repeats):
                for regime, streams in CELLS:
                    url = zero if regime == "zero" else paced
                    order = CLIENTS[turn % 3:] + CLIENTS[:turn % 3]
                    turn += 1
                    for client in order:
                        sample = _one(client, regime, streams, repeat, url, local, sglang)
                        outcome.samples.append(sample)
                        if progress is not None:
                            progress(sample)
        finally:
            local.close()
            sglang.close()
    outcome.load_end = os.getloadavg()[0]
    return outcome


def figures(outcome: Outcome) -> dict[str, float]:
    """The figures by name (``..._vs_sglang_<regime>_<streams>``): medians over the repeats,
    and the ratios' lowest and highest."""
    found: dict[str, float] = {}
    for regime, streams in CELLS:
        cell = [s for s in outcome.samples if (s.regime, s.streams) == (regime, streams)]
        by = {c: {s.repeat: s for s in cell if s.client == c} for c in CLIENTS}
        tail = f"_vs_sglang_{regime}_{streams}"
        for client, prefix in (("benchdoc", ""), ("sglang", "sglang_"), ("bare", "bare_")):
            values = [s.per_cpu_s for s in by[client].values()]
            if values:
                found[f"{prefix}chunks_per_cpu_s{tail}"] = round(statistics.median(values), 1)
        repeats = sorted(set(by["benchdoc"]) & set(by["sglang"]))
        ratios = [by["benchdoc"][r].per_cpu_s / by["sglang"][r].per_cpu_s for r in repeats if by["sglang"][r].per_cpu_s]
        if ratios:
            found[f"over_sglang{tail}"] = round(statistics.median(ratios), 3)
            found[f"over_sglang_low{tail}"] = round(min(ratios), 3)
            found[f"over_sglang_high{tail}"] = round(max(ratios), 3)
        bare = [by["benchdoc"][r].per_cpu_s / by["bare"][r].per_cpu_s for r in repeats
                if r in by["bare"] and by["bare"][r].per_cpu_s]
        if bare:
            found[f"over_bare{tail}"] = round(statistics.median(bare), 3)
        if regime == "paced":
            for client, prefix in (("benchdoc", ""), ("sglang", "sglang_")):
                errors = [s.ttft_error_ms for s in by[client].values() if s.ttft_error_ms is not None]
                if errors:
                    found[f"{prefix}ttft_error_ms{tail}"] = round(statistics.median(errors), 3)
        found[f"client_bound_runs{tail}"] = float(sum(1 for s in by["benchdoc"].values() if s.bound))
        found[f"load_avg_1m{tail}"] = round(max(s.load_1m for s in cell), 2) if cell else 0.0
    return found


def table(outcome: Outcome) -> str:
    """The per-cell table: medians, the ratio to SGLang with its range, TTFT errors, verdicts."""
    data = figures(outcome)
    lines = [f"SGLang {outcome.sglang_version}; clients on core {outcome.cores[0]}, server on core {outcome.cores[1]}; "
             f"load average {outcome.load_start:.2f} at the start, {outcome.load_end:.2f} at the end",
             f"{'cell':<12} {'benchdoc':>9} {'sglang':>9} {'bare':>9} {'÷ sglang (range)':>22} {'÷ bare':>7} "
             f"{'TTFT err':>9} {'sglang err':>10} {'bound':>6} {'load':>5}"]
    for regime, streams in CELLS:
        t = f"_vs_sglang_{regime}_{streams}"

        def get(name: str, t: str = t) -> float | None:
            return data.get(name + t)

        def fmt(value: float | None, spec: str) -> str:
            return "—" if value is None else format(value, spec)

        span = (f"{fmt(get('over_sglang'), '.2f')} ({fmt(get('over_sglang_low'), '.2f')}–"
                f"{fmt(get('over_sglang_high'), '.2f')})")
        lines.append(f"{regime + ' ' + str(streams):<12} {fmt(get('chunks_per_cpu_s'), '.0f'):>9} "
                     f"{fmt(get('sglang_chunks_per_cpu_s'), '.0f'):>9} {fmt(get('bare_chunks_per_cpu_s'), '.0f'):>9} "
                     f"{span:>22} {fmt(get('over_bare'), '.2f'):>7} {fmt(get('ttft_error_ms'), '+.2f'):>9} "
                     f"{fmt(get('sglang_ttft_error_ms'), '+.2f'):>10} {fmt(get('client_bound_runs'), '.0f'):>6} "
                     f"{fmt(get('load_avg_1m'), '.2f'):>5}")
    verdicts = sorted({f"{s.regime} {s.streams}: {s.verdict}" for s in outcome.samples
                       if s.client == "benchdoc" and s.verdict and s.repeat == 0})
    return "\n".join([*lines, "", "benchdoc's own verdicts (first repeat):", *verdicts])
