"""A seeded mutator over the fixtures: deterministic for a seed, no third-party fuzzer needed."""

from __future__ import annotations

import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_INPUT = 1536  # small inputs: fast, and every bug found so far needed fewer bytes
# The nesting/size mutator's bounds: deep enough that a cost quadratic in the depth or the
# size shows as a hang (--hang-s), small enough that a one-core campaign keeps its rate.
MAX_DEPTH = 1024
MAX_GROWN = 16 * 1024

# Pieces that reach the interesting states: asm syntax, PTX syntax, preprocessor, line breaks,
# encodings, the fix engine's favourite spots.
TOKENS = [
    b"asm", b"asm volatile", b"__asm__ __volatile__", b"asm goto", b"(", b")", b":", b"::",
    b":::", b'"memory"', b'"=r"', b'"+l"', b'"n"', b'"r"(x)', b",", b";", b"{", b"}", b"[", b"]",
    b'"', b"'", b"\\", b"\\n", b"\\t", b"%0", b"%1", b"%%", b"%=", b"%[a]", b"%w0", b"%{", b"%}",
    b"{\\n\\t.reg .b32 t;", b"ld.global.u32", b"st.shared.b64", b"mma.sync", b"@p", b".reg .pred",
    b"#if", b"#ifdef X", b"#else", b"#endif", b"#define M(x) asm(x)", b"#include", b"\\\n",
    b"//", b"/*", b"*/", b"\r", b"\r\n", b"\n", b"\t", b"\x00", b"\xff", b"\xef\xbb\xbf",
    "é".encode(), "😀".encode(), "\u2028".encode(), b"\x0c", b"template <int N>", b"__device__",
    b"(1<<63)", b"-1/0", b"defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900",
    b"@triton.jit", b"tl.inline_asm_elementwise(", b"asm=", b"constraints=", b'"""',
]


def seeds(python: bool = True) -> list[tuple[str, bytes]]:
    """(suffix, bytes) of every fixture: .cu/.cuh/.h sources, and with ``python`` the Python
    ones (the Python front end's entry)."""
    out = []
    suffixes = (".cu", ".cuh", ".h", ".hpp", *((".py",) if python else ()))
    for path in sorted((ROOT / "fixtures").rglob("*")):
        if path.is_file() and path.suffix in suffixes:
            out.append((path.suffix if path.suffix == ".py" else ".cu", path.read_bytes()))
    return out


def mutate(data: bytes, rng: random.Random, other: bytes) -> bytes:
    if len(data) > MAX_INPUT:
        start = rng.randrange(len(data) - MAX_INPUT)
        data = data[start : start + MAX_INPUT]
    if rng.randrange(8) == 0:
        return nest_or_grow(data, rng)
    buf = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3, 5, 8))):
        op = rng.randrange(8)
        at = rng.randrange(len(buf) + 1)
        if op == 0 and buf:  # flip a byte
            buf[min(at, len(buf) - 1)] = rng.randrange(256)
        elif op in (1, 2):  # insert a token
            buf[at:at] = rng.choice(TOKENS)
        elif op == 3 and buf:  # delete a range
            buf[at : at + rng.randrange(1, 64)] = b""
        elif op == 4 and buf:  # duplicate a range
            end = min(len(buf), at + rng.randrange(1, 128))
            buf[end:end] = buf[at:end] * rng.randrange(1, 4)
        elif op == 5 and other:  # splice from another seed
            a = rng.randrange(len(other))
            buf[at:at] = other[a : a + rng.randrange(1, 256)]
        elif op == 6:  # truncate
            del buf[at:]
        else:  # change line endings of a region
            end = min(len(buf), at + rng.randrange(1, 512))
            buf[at:end] = bytes(buf[at:end]).replace(b"\n", rng.choice((b"\r", b"\r\n", b"\n")))
    return bytes(buf[: MAX_INPUT * 2])


# Openers and closers the nesting mutator wraps a region in: preprocessor blocks (with their
# #else/#elif branches), braces, parentheses, brackets, templates, namespaces, lambdas.
_WRAPS = [
    (b"#if A\n", b"#endif\n"),
    (b"#ifdef __CUDA_ARCH__\n", b"#else\n#endif\n"),
    (b"#if __CUDA_ARCH__ >= 900\n", b"#elif defined(B)\n#else\n#endif\n"),
    (b"#ifndef X\n#define X 1\n", b"#endif\n"),
    (b"{\n", b"}\n"),
    (b"(", b")"),
    (b"[", b"]"),
    (b"namespace n {\n", b"}\n"),
    (b"if (x) {\n", b"}\n"),
    (b"[&]() {\n", b"}();\n"),
    (b"template <int N> struct S {\n", b"};\n"),
    (b"#define M(x) \\\n", b"\n"),
]


def nest_or_grow(data: bytes, rng: random.Random) -> bytes:
    """Deep nesting or sheer size, at most ``MAX_DEPTH`` levels and about ``MAX_GROWN`` bytes:
    a region (whole lines where there are any) wrapped in one opener/closer pair, or a mix
    of them, many levels deep, unbalanced at times; a long ``#elif`` chain; a line or a region
    repeated; a chain of macros each naming the next."""
    lines = data.splitlines(keepends=True) or [b""]
    a = rng.randrange(len(lines))
    b = rng.randrange(a, min(len(lines), a + 8)) + 1
    head, region, tail = b"".join(lines[:a]), b"".join(lines[a:b]), b"".join(lines[b:])
    depth = min(MAX_DEPTH, int(2 ** rng.uniform(1, 10)))
    op = rng.randrange(6)
    if op == 0:  # one kind of nesting
        opener, closer = rng.choice(_WRAPS)
        depth = min(depth, MAX_GROWN // (len(opener) + len(closer)))
        out = opener * depth + region + closer * depth
    elif op == 1:  # a mix of kinds, closed in order
        pairs = [rng.choice(_WRAPS) for _ in range(min(depth, 512))]
        out = b"".join(o for o, _ in pairs) + region + b"".join(c for _, c in reversed(pairs))
    elif op == 2:  # unbalanced: openers without closers, or closers first
        opener, closer = rng.choice(_WRAPS)
        out = (opener * depth + region) if rng.randrange(2) else (closer * depth + region)
    elif op == 3:  # a long #elif chain around the region
        out = (b"#if C0\n" + b"".join(b"#elif C%d\n" % i for i in range(1, depth))
               + region + b"#else\n" + region + b"#endif\n")
    elif op == 4:  # size: the region repeated
        out = region * max(1, min(depth, MAX_GROWN // max(1, len(region))))
    else:  # a chain of object-like macros, each naming the next, used in an #if
        out = (b"".join(b"#define M%d M%d\n" % (i, i + 1) for i in range(depth))
               + b"#if M0\n" + region + b"#endif\n")
    return (head + out + tail)[: MAX_GROWN + 2 * MAX_INPUT]
