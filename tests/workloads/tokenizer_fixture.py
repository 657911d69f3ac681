"""A small real tokenizer, trained in the test from a few sentences (nothing downloaded)."""

from __future__ import annotations

from pathlib import Path

CORPUS = [
    "the quick brown fox jumps over the lazy dog",
    "speculative decoding drafts a few tokens and verifies them in one step",
    "prefix caching keeps the keys and values of a shared system prompt",
    "a server under load queues requests once every slot of its batch is taken",
    "throughput grows with the batch until the latency target is missed",
] * 20


def build_tokenizer(folder: Path) -> Path:
    """Train a byte-level BPE tokenizer on ``CORPUS`` and save ``folder/tokenizer.json``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE(unk_token=None))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tokenizer.json"
    tokenizer.save(str(path))
    return path
