"""`benchdoc sim`: run the inference-server simulator in the foreground."""

from __future__ import annotations

import argparse
import os
import sys

from benchdoc.errors import RunError, UsageError

ORDER = 60

DESCRIPTION = """\
Serve a simulated LLM inference server (not real hardware) on 127.0.0.1.

It speaks the OpenAI API (/v1/completions, /v1/chat/completions, streaming SSE with
usage; /v1/models), SGLang's /generate (streaming meta_info with speculative-decoding
counts), /health, /server_info and a Prometheus /metrics with vLLM's counter names.
Latency follows a seeded model, so measurements can be checked against it; nothing it
serves is a measurement of hardware. Logs go to stderr; the line
  benchdoc simulator (not real hardware) listening on http://HOST:PORT
says it is ready to accept connections (with --port 0 it names the port picked).
"""

EPILOG = """\
latency model:
  TTFT = --ttft-ms, or --prefill-overhead-ms + n_input x --prefill-per-token-ms when
  the latter is given; n_input counts whitespace-separated words of the prompt (or
  token ids, or the words of every chat message). Then one decode step of --step-ms
  releases one token; with --draft-steps k > 0 each step drafts k tokens, accepts each
  with --accept-prob until the first rejection, and releases 1 + accepted tokens in
  one chunk for --step-ms + --verify-ms. With R requests running, a step takes
  (1 + --load-slope x (min(R, --max-running) - 1)) times longer; requests beyond
  --max-running queue. --noise-cv scales every duration by seeded log-normal noise
  with mean 1. Tokens leave on absolute deadlines from the request's admission.

examples:
  benchdoc sim --port 8000 --ttft-ms 40 --step-ms 8
  benchdoc sim --port 8000 --draft-steps 3 --accept-prob 0.7 --verify-ms 2
  benchdoc sim --port 8000 --fail-start "torch.OutOfMemoryError: CUDA out of memory"
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "sim",
        help="run the inference-server simulator (not real hardware)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    where = parser.add_argument_group("where")
    where.add_argument("--port", type=int, default=8000, help="port to listen on; 0 picks a free one (default 8000)")
    where.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")

    model = parser.add_argument_group("latency model")
    model.add_argument("--model", default="sim-llm", help="served model name (default sim-llm)")
    model.add_argument("--ttft-ms", type=float, default=20.0, metavar="MS", help="time to first token (default 20)")
    model.add_argument("--prefill-overhead-ms", type=float, default=0.0, metavar="MS",
                       help="fixed prefill cost when --prefill-per-token-ms is given (default 0)")
    model.add_argument("--prefill-per-token-ms", type=float, default=None, metavar="MS",
                       help="prefill cost per input token; replaces --ttft-ms when given")
    model.add_argument("--step-ms", type=float, default=5.0, metavar="MS", help="one decode step (default 5)")
    model.add_argument("--load-slope", type=float, default=0.0, metavar="F",
                       help="fractional step-time growth per additional running request (default 0)")
    model.add_argument("--max-running", type=int, default=1024, metavar="N",
                       help="requests decoded at once; more wait in a queue (default 1024)")
    model.add_argument("--noise-cv", type=float, default=0.0, metavar="CV",
                       help="coefficient of variation of every duration; 0 = exact model (default 0)")
    model.add_argument("--seed", type=int, default=0, help="seed of the noise, acceptances and errors (default 0)")
    model.add_argument("--draft-steps", type=int, default=0, metavar="K",
                       help="speculative draft tokens per step; 0 = no speculation (default 0)")
    model.add_argument("--accept-prob", type=float, default=0.7, metavar="P",
                       help="acceptance probability of each draft token (default 0.7)")
    model.add_argument("--verify-ms", type=float, default=0.0, metavar="MS",
                       help="extra cost of a speculative step (default 0)")
    model.add_argument("--default-max-tokens", type=int, default=128, metavar="N",
                       help="output length when a request sets none (default 128)")
    model.add_argument("--natural-output-tokens", type=int, default=None, metavar="N",
                       help="stop after N tokens unless ignore_eos/min_tokens force more (default: run to max_tokens)")
    model.add_argument("--max-model-len", type=int, default=32768, metavar="N",
                       help="context length; longer requests get HTTP 400 (default 32768)")

    faults = parser.add_argument_group("faults")
    faults.add_argument("--fail-start", metavar="MESSAGE", default=None,
                        help="print a model-loading traceback ending in MESSAGE (empty: a CUDA out-of-memory "
                        "error) and exit 1 without listening")
    faults.add_argument("--ready-delay", type=float, default=0.0, metavar="S",
                        help="answer 503 on /health and generation for S seconds after start (default 0)")
    faults.add_argument("--die-after-requests", type=int, default=None, metavar="N",
                        help="log a fatal CUDA error and exit at once when the N-th generation request starts")
    faults.add_argument("--stall-after-tokens", type=int, default=None, metavar="N",
                        help="every stream stops after N tokens but keeps its connection open")
    faults.add_argument("--error-rate", type=float, default=0.0, metavar="R",
                        help="answer HTTP 500 to a seeded fraction R of generation requests (default 0)")
    faults.add_argument("--preempt-on-arrival", choices=["done", "close"], default=None,
                        help="a newly arrived request preempts the oldest running stream, which ends at its "
                        "next token without a finish_reason: with data: [DONE] (done) or by just ending "
                        "the response (close)")
    faults.add_argument("--no-stream-usage", dest="stream_usage", action="store_false",
                        help="never send usage in a stream, even when stream_options asks for it "
                        "(llama-cpp-python's server does not)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.sim import SimConfig, SimStartFailure, serve

    try:
        config = SimConfig(
            model=args.model,
            ttft_ms=args.ttft_ms,
            prefill_overhead_ms=args.prefill_overhead_ms,
            prefill_per_token_ms=args.prefill_per_token_ms,
            step_ms=args.step_ms,
            load_slope=args.load_slope,
            max_running=args.max_running,
            noise_cv=args.noise_cv,
            seed=args.seed,
            draft_steps=args.draft_steps,
            accept_prob=args.accept_prob,
            verify_ms=args.verify_ms,
            default_max_tokens=args.default_max_tokens,
            natural_output_tokens=args.natural_output_tokens,
            max_model_len=args.max_model_len,
            fail_start=args.fail_start,
            ready_delay_s=args.ready_delay,
            die_after_requests=args.die_after_requests,
            stall_after_tokens=args.stall_after_tokens,
            error_rate=args.error_rate,
            preempt_on_arrival=args.preempt_on_arrival,
            stream_usage=args.stream_usage,
        )
    except ValueError as err:
        raise UsageError(str(err)) from None
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be within 0..65535 (got {args.port})")

    try:
        serve(config, args.host, args.port, log=_log, on_fatal=_crash)
    except SimStartFailure as failure:
        sys.stderr.write(failure.log)
        sys.stderr.flush()
        return 1
    except OSError as err:
        raise RunError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    return 0


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _crash(line: str) -> None:
    """The injected crash: log like a dying engine and leave without any cleanup."""
    _log(line)
    os._exit(1)
