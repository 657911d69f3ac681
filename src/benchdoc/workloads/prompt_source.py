"""Where each request's prompt and lengths come from: synthetic words, random token ids,
a dataset, a text corpus, optionally behind a shared system prompt.

Built once per run from a spec; ``plan(number)`` is a pure function of the request's
number and the seed, so a run is repeatable and warm-up prompts differ from measured ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchdoc.errors import UsageError
from benchdoc.workloads.datasets import Dataset, DatasetEntry, load_dataset
from benchdoc.workloads.prompts import pick_length, synthetic_prompt
from benchdoc.workloads.protocols import API_CHAT, PREFIX_SEPARATOR

if TYPE_CHECKING:
    from benchdoc.workloads.spec import WorkloadSpec
    from benchdoc.workloads.tokenizer import Tokenizer
    from benchdoc.workloads.trace import Trace

# How a request's input length was known before the server said anything.
LENGTH_FROM_WORDS = "prompt-words"  # counted in words: about one token each, not exact
LENGTH_FROM_TOKENIZER = "tokenizer"  # counted with the tokenizer given: exact for that tokenizer


@dataclass(frozen=True)
class PromptPlan:
    """One request's prompt (``system`` is the shared prefix, if any) and its lengths."""

    text: str
    input_tokens: int
    output_tokens: int
    system: str | None = None


class PromptSource:
    """The prompts of one run."""

    def __init__(self, spec: WorkloadSpec, dataset: Dataset | None, tokenizer: Tokenizer | None) -> None:
        self.spec = spec
        self.dataset = dataset
        self.tokenizer = tokenizer
        self._entries: list[DatasetEntry] = []
        self._corpus_words: list[str] = []
        self._corpus_ids: list[int] = []
        self._prefixes: list[tuple[str, int]] = []
        self.trace: Trace | None = None
        self.filtered_out = 0  # dataset entries outside the length filters
        if spec.trace is not None:
            from benchdoc.workloads.trace import load_trace

            self.trace = load_trace(spec.trace)
        if dataset is not None and dataset.format == "text":
            self._load_corpus(dataset)
        elif dataset is not None:
            self._load_entries(dataset)
        if spec.shared_prefix_groups:
            self._prefixes = [self._prefix(group) for group in range(spec.shared_prefix_groups)]

    @property
    def length_source(self) -> str:
        return LENGTH_FROM_TOKENIZER if self.tokenizer is not None else LENGTH_FROM_WORDS

    def describe(self) -> str:
        """The prompts in a few words, for the run's settings."""
        return self.spec.prompt_description()

    def provenance(self) -> dict[str, Any]:
        data: dict[str, Any] = {"prompts": self.describe(), "input_length": self.length_source}
        if self.dataset is not None:
            data["dataset"] = self.dataset.provenance()
            if self._entries:
                data["dataset"]["used_entries"] = len(self._entries)
                data["dataset"]["filtered_out"] = self.filtered_out
        if self.tokenizer is not None:
            data["tokenizer"] = self.tokenizer.info.provenance()
        else:
            data["tokenizer"] = None
            data["note"] = "no tokenizer: lengths are counted in words, about one token each"
        return data

    # -- one request ----------------------------------------------------------------------

    def plan(self, number: int) -> PromptPlan:
        spec = self.spec
        rng = random.Random(spec.seed * 1_000_003 + number)
        input_len = pick_length(spec.input_tokens, spec.input_tokens_max, rng)
        output_len = pick_length(spec.output_tokens, spec.output_tokens_max, rng)
        if self.trace is not None:  # the trace's own lengths, request by request
            at = number % len(self.trace.inputs)
            input_len, output_len = self.trace.inputs[at], self.trace.outputs[at]
        if self._entries:
            text, length, dataset_output = self._from_entry(number, input_len)
            if dataset_output is not None and spec.dataset_output_len:
                output_len = dataset_output
        elif self._corpus_words or self._corpus_ids:
            text, length = self._slice(input_len, rng)
        elif self.tokenizer is not None:
            text, length = self.tokenizer.random_text(input_len, random.Random(rng.randrange(2**63)))
        else:
            text, length = synthetic_prompt(input_len, seed=rng.randrange(2**63)), input_len
        if not self._prefixes:
            return PromptPlan(text, length, output_len)
        system, system_len = self._prefixes[number % len(self._prefixes)]
        return PromptPlan(text, system_len + length + self._separator(system, text, system_len + length),
                          output_len, system=system)

    def _separator(self, system: str, text: str, parts: int) -> int:
        """The tokens the separator between a shared prefix and the prompt adds: none on the
        chat API (a system message of its own); elsewhere the text is sent as prefix, a
        blank line and prompt, counted whole with the tokenizer (joins included), or as one
        token in words."""
        if self.spec.api == API_CHAT:
            return 0
        if self.tokenizer is not None:
            return self.tokenizer.count(f"{system}{PREFIX_SEPARATOR}{text}") - parts
        return 1

    def conversation(self, number: int) -> list[tuple[str, int]]:
        """Conversation ``number``'s user turns, each with the output length it asks for
        (its reference answer's length, unless the output length was given)."""
        entry = self._entries[self._order[number % len(self._entries)]]
        turns = entry.turns or ((entry.prompt, entry.answer or ""),)
        rng = random.Random(self.spec.seed * 1_000_003 + number)
        fixed = pick_length(self.spec.output_tokens, self.spec.output_tokens_max, rng)
        return [(user, max(1, self._count(answer)) if self.spec.dataset_output_len and answer.strip() else fixed)
                for user, answer in turns]

    def count_text(self, text: str) -> int:
        """A text's length as this run counts lengths (the tokenizer's, else words)."""
        return self._count(text)

    def _from_entry(self, number: int, input_len: int) -> tuple[str, int, int | None]:
        entries = self._entries
        entry = entries[self._order[number % len(entries)]]
        if self.spec.truncate_prompts:
            text, length = self._cut(entry.prompt, input_len)
        else:
            text, length = entry.prompt, self._count(entry.prompt)
        output = entry.output_len
        if output is None and entry.answer is not None:
            output = max(1, self._count(entry.answer))
        return text, length, output

    def _slice(self, length: int, rng: random.Random) -> tuple[str, int]:
        if self.tokenizer is not None:
            start = rng.randrange(len(self._corpus_ids) - length + 1)
            ids = self._corpus_ids[start : start + length]
            return self.tokenizer.fit(ids, length)
        start = rng.randrange(len(self._corpus_words) - length + 1)
        return " ".join(self._corpus_words[start : start + length]), length

    # -- building -------------------------------------------------------------------------

    def _count(self, text: str) -> int:
        return self.tokenizer.count(text) if self.tokenizer is not None else len(text.split())

    def _cut(self, text: str, tokens: int) -> tuple[str, int]:
        if self.tokenizer is not None:
            cut = self.tokenizer.truncate(text, tokens)
            assert cut is not None  # entries shorter than the longest length were dropped
            return cut
        return " ".join(text.split()[:tokens]), tokens

    def _longest_input(self) -> int:
        return self.spec.input_tokens_max or self.spec.input_tokens

    def _load_entries(self, dataset: Dataset) -> None:
        entries = self._filtered(list(dataset.entries))
        if self.spec.truncate_prompts:
            need = self._longest_input()
            entries = [e for e in entries if self._count(e.prompt) >= need]
            if not entries:
                unit = "tokens" if self.tokenizer else "words"
                raise UsageError(
                    f"no prompt in the dataset is as long as the requested {need} {unit}: "
                    "ask for fewer input tokens or leave the prompts as written",
                    dataset.path,
                )
        self._entries = entries
        order = list(range(len(entries)))
        random.Random(self.spec.seed).shuffle(order)
        self._order = order

    def _filtered(self, entries: list[DatasetEntry]) -> list[DatasetEntry]:
        """The entries within the spec's length filters (as SGLang's and vLLM's ShareGPT
        readers filter, with bounds of the user's choosing); the count dropped is kept."""
        spec = self.spec
        low, max_input, max_total = spec.dataset_min_tokens, spec.dataset_max_input, spec.dataset_max_total
        if not (low or max_input or max_total):
            return entries
        kept = []
        for entry in entries:
            prompt = self._count(entry.prompt)
            output = entry.output_len if entry.output_len is not None else (
                self._count(entry.answer) if entry.answer is not None else None)
            if prompt < low or (output is not None and output < low):
                continue
            if (max_input and prompt > max_input) or (max_total and prompt + (output or 0) > max_total):
                continue
            kept.append(entry)
        self.filtered_out = len(entries) - len(kept)
        if not kept:
            raise UsageError(f"no entry of the dataset is within the length filters ({len(entries)} dropped)",
                             self.dataset.path if self.dataset else None)
        return kept

    def _load_corpus(self, dataset: Dataset) -> None:
        corpus = dataset.corpus or ""
        need = self._longest_input()
        if self.tokenizer is not None:
            self._corpus_ids = self.tokenizer.encode(corpus)
            have, unit = len(self._corpus_ids), "tokens"
        else:
            self._corpus_words = corpus.split()
            have, unit = len(self._corpus_words), "words"
        if have < need:
            raise UsageError(
                f"the corpus has {have} {unit}, too short for prompts of {need} {unit}", dataset.path
            )

    def _prefix(self, group: int) -> tuple[str, int]:
        tokens = self.spec.shared_prefix_tokens
        rng = random.Random(f"benchdoc-prefix/{self.spec.seed}/{group}")
        if self.tokenizer is not None:
            return self.tokenizer.random_text(tokens, rng)
        return synthetic_prompt(tokens, seed=rng.randrange(2**63)), tokens


def prompt_source(spec: WorkloadSpec) -> PromptSource:
    """Load the spec's dataset and tokenizer (if any) and return its prompts.

    Raises :class:`UsageError` for a missing or malformed file, or prompts too short.
    """
    dataset = load_dataset(spec.dataset, spec.dataset_format) if spec.dataset else None
    tokenizer = None
    if spec.tokenizer:
        from benchdoc.workloads.tokenizer import load_tokenizer

        tokenizer = load_tokenizer(spec.tokenizer)
    return PromptSource(spec, dataset, tokenizer)
