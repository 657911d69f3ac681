"""`benchdoc bench`'s command line: its options with their help, and the workload spec
(with every misuse reported as a usage error) and load levels they make."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from benchdoc.cli import _bench_extra
from benchdoc.errors import UsageError
from benchdoc.limits import DEFAULT_REQUEST_TIMEOUT_S, number, whole_number

if TYPE_CHECKING:
    from benchdoc.naming import LoadLevel
    from benchdoc.workloads import WorkloadSpec

DESCRIPTION = """\
Drive one streaming workload against an LLM server (OpenAI completions or chat, or
SGLang's /generate) and print what it measured: TTFT, TPOT, ITL, end-to-end latency
and client queueing (mean and percentiles), throughput, error rate and, when the server
reports it, speculative decoding's accept length. Each metric is defined in
docs/metrics.md. Failed requests are counted in the error rate and kept out of every
other figure; a stalled stream fails after its idle timeout instead of hanging the run.
"""

EPILOG = """\
examples:
  benchdoc bench --url http://127.0.0.1:8000 --concurrency 16 --requests 200
  benchdoc bench --url http://127.0.0.1:30000 --api sglang --rate 8 --duration 60 --warmup 8
  benchdoc bench --url http://127.0.0.1:8000 --input-tokens 1024 --output-tokens 256 \\
      --record eagle3 --json
  benchdoc bench --url http://127.0.0.1:8000 --concurrency 8 --repetitions 5 --record eagle3

The API key is read from --api-key or OPENAI_API_KEY; it is sent, never printed or recorded.
exit status: 0 when the run measured something, 1 when it was aborted or every request failed.
"""


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "bench",
        help="measure a streaming LLM server (latency, throughput, error rate)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    server = parser.add_argument_group("server")
    server.add_argument("--url", required=True, help="the server's base URL, e.g. http://127.0.0.1:8000")
    server.add_argument("--api", default="openai-completions", choices=["openai-completions", "openai-chat", "sglang"],
                        help="API to drive (default openai-completions)")
    server.add_argument("--model", help="model name to request (default: the first the server lists)")
    server.add_argument("--api-key", help="bearer token (default: $OPENAI_API_KEY); never recorded")
    server.add_argument("--metrics-url", help="Prometheus endpoint scraped every second of the run (running and "
                        "waiting requests, KV-cache usage, prefix-cache hits, speculative decoding; default: the "
                        "server's /metrics)")
    server.add_argument("--no-metrics-scrape", action="store_true", help="do not scrape the server's Prometheus metrics")

    load = parser.add_argument_group("load")
    shape = load.add_mutually_exclusive_group()
    shape.add_argument("--concurrency", metavar="N[,N...]",
                       help="closed loop with N requests in flight (default 1); a list sweeps each level in turn")
    shape.add_argument("--rate", metavar="R[,R...]",
                       help="open loop: R requests/s, Poisson arrivals; a list (1,2,4,8) sweeps each level in turn")
    load.add_argument("--burstiness", type=number, default=1.0, metavar="B",
                      help="open loop: gamma arrivals of shape B (1 = Poisson, <1 burstier)")
    load.add_argument("--max-concurrency", type=whole_number, metavar="N", help="open loop: at most N in flight")
    size = load.add_mutually_exclusive_group()
    size.add_argument("--requests", type=whole_number, metavar="N", help="measured requests (default 100)")
    size.add_argument("--duration", type=number, metavar="S", help="send measured requests for S seconds")
    load.add_argument("--warmup", type=whole_number, default=0, metavar="N", help="warm-up requests, excluded (default 0)")
    load.add_argument("--repetitions", "-n", type=whole_number, default=1, metavar="N",
                      help="measure the workload N times, repetition i with seed + i and the warm-up before the "
                      "first only, as `run` does; --record keeps them as one run of N samples per metric")
    load.add_argument("--seed", type=whole_number, default=0, help="seed of prompts, lengths and arrivals (default 0)")
    _add_client_arguments(parser)

    shape_group = parser.add_argument_group("requests")
    shape_group.add_argument("--input-tokens", type=whole_number, metavar="N",
                             help="prompt length: in words, about one token each (default 128); exact tokens "
                             "with --tokenizer; with --dataset, cut each prompt to N (shorter ones are skipped)")
    shape_group.add_argument("--input-tokens-max", type=whole_number, metavar="N",
                             help="draw prompt lengths uniformly from --input-tokens..N")
    shape_group.add_argument("--output-tokens", type=whole_number, metavar="N",
                             help="output tokens, forced with max_tokens/min_tokens/ignore_eos (default 128, "
                             "or the dataset's own lengths when it has them)")
    shape_group.add_argument("--output-tokens-max", type=whole_number, metavar="N",
                             help="draw output lengths uniformly from --output-tokens..N")
    shape_group.add_argument("--temperature", type=number, default=0.0, help="sampling temperature (default 0)")
    shape_group.add_argument("--no-ignore-eos", action="store_true",
                             help="let the model stop early instead of forcing the output length "
                             "(and send no ignore_eos/min_tokens, for servers that refuse them)")
    shape_group.add_argument("--no-continuous-usage", action="store_true",
                             help="OpenAI routes: do not ask for usage on every chunk "
                             "(stream_options.continuous_usage_stats), for servers that refuse it")

    _add_prompt_and_search_arguments(parser)
    _bench_extra.register(parser)

    limits = parser.add_argument_group("timeouts (seconds)")
    limits.add_argument("--timeout-connect", type=number, default=10.0, metavar="S", help="TCP connect (default 10)")
    limits.add_argument("--timeout-first-token", type=number, default=120.0, metavar="S",
                        help="send to first output (default 120)")
    limits.add_argument("--timeout-idle", type=number, default=60.0, metavar="S",
                        help="silence between chunks once output started (default 60)")
    limits.add_argument("--timeout-request", type=number, metavar="S", help="whole request (default 600)")

    out = parser.add_argument_group("output")
    out.add_argument("--percentile", type=number, action="append", default=[], metavar="P",
                     help="an extra percentile to report besides 50, 90 and 99 (repeatable)")
    out.add_argument("--json", action="store_true", help="print the result as JSON")
    out.add_argument("--verbose", "-v", action="store_true", help="the client's own figures in full (CPU, loop lag, "
                     "send delay, TTFT error), not its verdict alone")
    out.add_argument("--per-request", action="store_true", help="with --json: include every request's record")
    out.add_argument("--record", metavar="EXPERIMENT", help="record the run under EXPERIMENT (one server start)")
    out.add_argument("--note", help="with --record: free text kept with the run")
    out.add_argument("--allow-new", action="store_true",
                     help="with --record: record under an experiment that benchdoc.toml does not declare (yet)")
    return parser


def _add_client_arguments(parser: argparse.ArgumentParser) -> None:
    """How the client runs: its processes, event loop and HTTP reader."""
    client = parser.add_argument_group("client")
    client.add_argument("--workers", type=whole_number, metavar="N",
                        help="client processes, each with its own event loop (default: one per 256 streams, "
                        "at most the cores free)")
    client.add_argument("--event-loop", choices=["asyncio", "uvloop"],
                        help="the client's event loop (default: uvloop where it is installed, as on Linux and "
                        "macOS; asyncio elsewhere); the run's provenance records the one used")
    client.add_argument("--http-client", choices=["lean", "aiohttp"], default="lean",
                        help="what reads the streams: lean (the default: an asyncio protocol over httptools, "
                        "plain http; other URLs fall back to aiohttp) or aiohttp")


def _add_prompt_and_search_arguments(parser: argparse.ArgumentParser) -> None:
    """--dataset, --tokenizer, shared prefixes, --slo; the capacity search."""
    prompts = parser.add_argument_group("prompts")
    prompts.add_argument("--dataset", metavar="PATH",
                         help="prompts from a local file: ShareGPT .json, .jsonl with 'prompt' (and 'output_len'), "
                         "or a plain text corpus sliced into prompts")
    prompts.add_argument("--dataset-format", choices=["sharegpt", "jsonl", "text"],
                         help="the dataset's layout (default: from its extension)")
    prompts.add_argument("--tokenizer", metavar="PATH",
                         help="a local tokenizer.json (or a model folder with one): exact token lengths "
                         "(needs benchdoc[tokenizer])")
    prompts.add_argument("--shared-prefix-groups", type=whole_number, default=0, metavar="N",
                         help="N groups of requests, each sharing one system prompt (prefix caching)")
    prompts.add_argument("--shared-prefix-tokens", type=whole_number, default=0, metavar="P",
                         help="length of each shared system prompt")
    prompts.add_argument("--slo", metavar="SPEC",
                         help="goodput target, e.g. ttft_ms:200,tpot_ms:50: a request counts when it meets "
                         "every threshold (ms); goodput and SLO attainment are reported")

    search = parser.add_argument_group("capacity search")
    search.add_argument("--find-capacity", action="store_true",
                        help="search the highest request rate whose SLO attainment stays at or above --target "
                        "while the server achieves at least 80%% of it (doubling, then bisection); needs --slo; "
                        "each level runs --requests or --duration")
    search.add_argument("--target", type=number, default=0.99, metavar="F",
                        help="SLO attainment a rate must keep (default 0.99)")
    search.add_argument("--start-rate", type=number, default=1.0, metavar="R", help="first rate tried (default 1)")
    search.add_argument("--precision", type=number, default=0.05, metavar="F",
                        help="stop when the search's resolution (highest rate met, lowest missed) is within this "
                        "fraction (default 0.05)")
    search.add_argument("--time-budget", type=number, default=600.0, metavar="S",
                        help="no level is started that would end after S seconds (default 600)")


def build_spec(args: argparse.Namespace) -> WorkloadSpec:
    from benchdoc.workloads import Timeouts, WorkloadSpec
    from benchdoc.workloads.spec import parse_slo

    if args.no_metrics_scrape and args.metrics_url:
        raise UsageError("give --metrics-url or --no-metrics-scrape, not both")
    if args.per_request and not args.json:
        raise UsageError("--per-request applies to --json output")
    if args.note is not None and not args.record:
        raise UsageError("--note applies to --record")
    levels = load_levels(args)
    if args.repetitions < 1:
        raise UsageError("--repetitions needs a positive number")
    if args.repetitions > 1 and (len(levels) > 1 or args.find_capacity):
        raise UsageError("--repetitions repeats one load level: give one --rate or --concurrency, without --find-capacity")
    if args.find_capacity and (levels or args.max_concurrency):
        raise UsageError("--find-capacity chooses the rates itself: give no --rate or --concurrency")
    spec = WorkloadSpec(
        url=args.url,
        api=args.api,
        model=args.model,
        concurrency=int(levels[0].value) if levels and levels[0].kind == "concurrency" else None,
        rate=levels[0].value if levels and levels[0].kind == "rate" else None,
        burstiness=args.burstiness,
        max_concurrency=args.max_concurrency,
        requests=args.requests,
        duration_s=args.duration,
        warmup_requests=args.warmup,
        input_tokens=args.input_tokens if args.input_tokens is not None else 128,
        input_tokens_max=args.input_tokens_max,
        output_tokens=args.output_tokens if args.output_tokens is not None else 128,
        output_tokens_max=args.output_tokens_max,
        dataset=args.dataset,
        dataset_format=args.dataset_format,
        # With a dataset, a length given on the command line overrides the dataset's own.
        truncate_prompts=_truncates(args),
        dataset_output_len=args.output_tokens is None,
        tokenizer=args.tokenizer,
        shared_prefix_groups=args.shared_prefix_groups,
        shared_prefix_tokens=args.shared_prefix_tokens,
        slo=parse_slo(args.slo) if args.slo else (),
        workers=args.workers,
        event_loop=args.event_loop,
        http_client=args.http_client,
        temperature=args.temperature,
        ignore_eos=not args.no_ignore_eos,
        continuous_usage=not args.no_continuous_usage,
        timeouts=Timeouts(
            connect_s=args.timeout_connect,
            first_token_s=args.timeout_first_token,
            idle_s=args.timeout_idle,
            request_s=args.timeout_request if args.timeout_request is not None else DEFAULT_REQUEST_TIMEOUT_S,
        ),
        seed=args.seed,
        percentiles=tuple(args.percentile),
        metrics_url="" if args.no_metrics_scrape else args.metrics_url,
        api_key=args.api_key or os.environ.get("OPENAI_API_KEY") or None,
        **_bench_extra.spec_fields(args),
    )
    return spec.resolved()  # every problem reported before anything is sent


def load_levels(args: argparse.Namespace) -> tuple[LoadLevel, ...]:
    """The load levels of --rate or --concurrency (one level, or a sweep)."""
    from benchdoc.naming import parse_levels

    text, kind = (args.rate, "rate") if args.rate is not None else (args.concurrency, "concurrency")
    if text is None:
        return ()
    try:
        return parse_levels(text, kind)
    except ValueError as err:
        raise UsageError(f"--{kind}: {err}") from None


def _truncates(args: argparse.Namespace) -> bool:
    """--input-tokens with a dataset of prompts cuts each prompt (a corpus is always sliced)."""
    if not args.dataset or args.input_tokens is None:
        return False
    from benchdoc.workloads.datasets import guess_format

    return (args.dataset_format or guess_format(args.dataset)) != "text"
