"""A tiny llama-architecture model written as GGUF with llama.cpp's own writer (the `gguf`
package): 2 layers, 64 wide, random weights and a small SentencePiece-style ("llama")
vocabulary with byte fallback, so that the real llama.cpp loads it, tokenizes any text
and generates (meaningless) tokens in milliseconds. Nothing is downloaded.

The metadata keys and tensor names are the ones llama.cpp reads for ``general.architecture
= "llama"``: the hyperparameters under ``llama.*``, the vocabulary under ``tokenizer.ggml.*``
and, per block ``blk.N``, the attention and feed-forward weights."""

from __future__ import annotations

from pathlib import Path

LAYERS = 2
WIDTH = 64
HEADS = 4
FEED_FORWARD = 128
CONTEXT = 2048
UNK, BOS, EOS = 0, 1, 2
WORDS = ("the", "a", "of", "and", "to", "in", "is", "it", "that", "was", "for", "on", "are", "with", "as", "token")


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores and token types: <unk> <s> </s>, the 256 byte tokens, then the letters
    and a few words, each also with SentencePiece's word-start mark."""
    from gguf import TokenType

    tokens = ["<unk>", "<s>", "</s>"]
    types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL]
    tokens += [f"<0x{byte:02X}>" for byte in range(256)]
    types += [TokenType.BYTE] * 256
    pieces = ["\u2581", *"abcdefghijklmnopqrstuvwxyz", *(f"\u2581{w}" for w in WORDS), *WORDS]
    for piece in dict.fromkeys(pieces):
        tokens.append(piece)
        types.append(TokenType.NORMAL)
    scores = [0.0] * 259 + [-float(i) for i in range(len(tokens) - 259)]
    return tokens, scores, [int(t) for t in types]


def write_tiny_llama(path: Path, seed: int = 0) -> Path:
    """Write the model to ``path`` (a few hundred kilobytes) and return it."""
    import numpy as np
    from gguf import GGUFWriter

    rng = np.random.default_rng(seed)
    tokens, scores, types = vocabulary()

    def weights(*shape: int) -> np.ndarray:
        # numpy's shape is ggml's dimensions reversed: (rows, columns) = (outputs, inputs)
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    writer = GGUFWriter(str(path), "llama")
    writer.add_name("benchdoc-tiny-llama")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(WIDTH)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_rope_dimension_count(WIDTH // HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(tokens))
    writer.add_file_type(0)  # all float32
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(UNK)
    writer.add_bos_token_id(BOS)
    writer.add_eos_token_id(EOS)
    writer.add_add_bos_token(True)

    ones = np.ones(WIDTH, dtype=np.float32)
    writer.add_tensor("token_embd.weight", weights(len(tokens), WIDTH))
    writer.add_tensor("output_norm.weight", ones)
    writer.add_tensor("output.weight", weights(len(tokens), WIDTH))
    for block in range(LAYERS):
        prefix = f"blk.{block}"
        writer.add_tensor(f"{prefix}.attn_norm.weight", ones)
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(f"{prefix}.{name}.weight", weights(WIDTH, WIDTH))
        writer.add_tensor(f"{prefix}.ffn_norm.weight", ones)
        writer.add_tensor(f"{prefix}.ffn_gate.weight", weights(FEED_FORWARD, WIDTH))
        writer.add_tensor(f"{prefix}.ffn_up.weight", weights(FEED_FORWARD, WIDTH))
        writer.add_tensor(f"{prefix}.ffn_down.weight", weights(WIDTH, FEED_FORWARD))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
