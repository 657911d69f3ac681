"""Exact token lengths through a local tokenizer (the optional ``tokenizers`` library).

``--tokenizer PATH`` names a ``tokenizer.json`` or a model folder holding one; nothing is
downloaded. With it a prompt of N tokens is N tokens once encoded again (random token ids
decoded, or a longer text cut), and output tokens can be counted from the streamed text
when the server sends no count.
"""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchdoc.errors import UsageError

TOKENIZER_FILE = "tokenizer.json"
# A decoded text does not always encode back to the same number of ids (merges across
# the joins); this many adjustments are tried before settling for the nearest length.
_ADJUSTMENTS = 8


@dataclass(frozen=True)
class TokenizerInfo:
    """What the run records about the tokenizer."""

    path: str
    sha256: str
    vocab_size: int

    def provenance(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "vocab_size": self.vocab_size}


class Tokenizer:
    """A loaded tokenizer: count, cut and generate text by tokens."""

    def __init__(self, backend: Any, info: TokenizerInfo) -> None:
        self._backend = backend
        self.info = info
        special = {int(i) for i, token in backend.get_added_tokens_decoder().items() if token.special}
        candidates = [i for i in range(backend.get_vocab_size(with_added_tokens=True)) if i not in special]
        # Random text draws from tokens that decode to whole characters on their own: a
        # lone piece of a multi-byte character decodes to U+FFFD, which encodes back to
        # several other tokens.
        texts = backend.decode_batch([[i] for i in candidates], skip_special_tokens=True)
        self._ordinary = [
            i for i, text in zip(candidates, texts) if text.strip() and text.isprintable() and "\ufffd" not in text
        ]
        if not self._ordinary:
            raise UsageError("the tokenizer has no ordinary tokens", info.path)

    def encode(self, text: str) -> list[int]:
        return list(self._backend.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: list[int]) -> str:
        return str(self._backend.decode(ids, skip_special_tokens=True))

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def count_pieces(self, pieces: list[str]) -> list[int]:
        """The tokens of each piece of one text (a stream's chunks): the whole text is
        encoded once and each token is given to the piece its first character is in, so
        the counts add up to ``count("".join(pieces))``."""
        ends: list[int] = []
        position = 0
        for piece in pieces:
            position += len(piece)
            ends.append(position)
        counts = [0] * len(pieces)
        if not pieces:
            return counts
        encoding = self._backend.encode("".join(pieces), add_special_tokens=False)
        for start, _ in encoding.offsets:
            counts[min(bisect_right(ends, start), len(pieces) - 1)] += 1
        return counts

    def random_text(self, tokens: int, rng: random.Random) -> tuple[str, int]:
        """Text of random ordinary token ids, adjusted until it encodes to ``tokens`` ids;
        returns the text and its actual length (the nearest reached, if not exact)."""
        ids = [rng.choice(self._ordinary) for _ in range(tokens)]
        return self.fit(ids, tokens, rng)

    def truncate(self, text: str, tokens: int) -> tuple[str, int] | None:
        """The first ``tokens`` tokens of ``text`` (and the length reached), or None when
        the text is shorter than that."""
        ids = self.encode(text)
        if len(ids) < tokens:
            return None
        return self.fit(ids[:tokens], tokens)

    def fit(self, ids: list[int], tokens: int, rng: random.Random | None = None) -> tuple[str, int]:
        """Text decoded from ``ids`` adjusted to encode back to ``tokens`` ids (filling
        from ``rng`` when it falls short), with the length reached."""
        best_text, best_len = "", -1
        for _ in range(_ADJUSTMENTS):
            text = self.decode(ids)
            got = self.encode(text)
            if len(got) == tokens:
                return text, tokens
            if best_len < 0 or abs(len(got) - tokens) < abs(best_len - tokens):
                best_text, best_len = text, len(got)
            if len(got) > tokens:
                ids = got[:tokens]
            else:
                extra = tokens - len(got)
                filler = [rng.choice(self._ordinary) for _ in range(extra)] if rng else ids[-extra:]
                ids = got + filler
        return best_text, best_len


def load_tokenizer(path: str | Path) -> Tokenizer:
    """The tokenizer at ``path`` (a tokenizer.json, or a folder with one)."""
    where = Path(path)
    file = where / TOKENIZER_FILE if where.is_dir() else where
    if not file.exists():
        detail = f"no {TOKENIZER_FILE} in this folder" if where.is_dir() else "tokenizer file not found"
        raise UsageError(detail, str(where))
    try:
        from tokenizers import Tokenizer as Backend  # optional: installed with benchdoc[tokenizer]
    except ImportError:
        raise UsageError(
            "exact token lengths need the tokenizers library: pip install 'benchdoc[tokenizer]'"
        ) from None
    from benchdoc.limits import MAX_TOKENIZER_BYTES, bounded_read

    try:
        raw = bounded_read(file, MAX_TOKENIZER_BYTES, "the tokenizer file")
    except OSError as err:
        raise UsageError(f"cannot read the tokenizer: {err.strerror or err}", str(file)) from None
    except ValueError as err:  # a device such as /dev/zero, a FIFO, a file over the size limit
        raise UsageError(str(err), str(file)) from None
    try:
        backend = Backend.from_str(raw.decode("utf-8"))
    except Exception as err:  # the library raises its own exception types for a bad file
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise UsageError(f"not a tokenizer file the tokenizers library can read: {first}", str(file)) from None
    info = TokenizerInfo(
        path=str(file), sha256=hashlib.sha256(raw).hexdigest(), vocab_size=backend.get_vocab_size(with_added_tokens=True)
    )
    return Tokenizer(backend, info)
