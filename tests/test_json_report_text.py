"""The JSON report's own writer gives json.dumps(indent=2, ensure_ascii=False)'s exact text.

Tools diff and hash the report, so its bytes are a contract: the writer that replaces json's
Python encoder (for speed) must agree with it on every value a report holds, and hand anything
else back to json, which writes or raises as it always did.
"""

from __future__ import annotations

import json
import random

import pytest

from ptxlint.report.json_format import dumps


def _reference(document: object) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False)


STRINGS = [
    "",
    "plain",
    'quote " and backslash \\',
    "tab\tnew\nline\rcarriage",
    "\x00\x01\x1f control",
    "\u2028 line separator \u2029",
    "ünïcödé ✓ 漢字",
    "\ud83d\ude00 emoji",
    "asm volatile(\"ld.global.b32 %0, [%1];\" : \"=r\"(x) : \"l\"(p));",
]

SCALARS: list[object] = [
    *STRINGS, None, True, False, 0, -1, 2**70, 1.5, -0.0, 1e300, 1e-300, float("nan"),
    float("inf"), float("-inf"),
]


def _random_document(rng: random.Random, depth: int) -> object:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(SCALARS)
    if rng.random() < 0.5:
        return [_random_document(rng, depth - 1) for _ in range(rng.randrange(0, 4))]
    return {
        rng.choice(STRINGS) + str(i): _random_document(rng, depth - 1)
        for i in range(rng.randrange(0, 4))
    }


@pytest.mark.parametrize("seed", range(60))
def test_random_documents_match_json(seed: int) -> None:
    document = _random_document(random.Random(seed), 5)
    assert dumps(document) == _reference(document)


@pytest.mark.parametrize("document", [{}, [], (), {"a": ()}, [[], {}], ("x", (1, 2.5))])
def test_empty_and_tuple_containers_match_json(document: object) -> None:
    assert dumps(document) == _reference(document)


def test_subclassed_values_are_written_as_json_writes_them() -> None:
    class Tag(str):
        pass

    class Count(int):
        pass

    document = {"tag": Tag("PTX101"), "n": Count(3), "flag": True}
    assert dumps(document) == _reference(document)


def test_a_key_that_is_not_a_string_goes_to_json() -> None:
    document = {"findings": [{1: "one", None: 2, 2.5: [True]}]}
    assert dumps(document) == _reference(document)


def test_a_value_json_cannot_write_raises_as_json_does() -> None:
    document = {"findings": [object()]}
    with pytest.raises(TypeError):
        _reference(document)
    with pytest.raises(TypeError):
        dumps(document)


def test_a_large_report_is_joined_in_pieces_with_the_same_text() -> None:
    # more pieces than the writer holds before it joins them
    document = {"findings": [{"rule": "PTX101", "line": i, "msg": STRINGS[i % 9]}
                             for i in range(30_000)]}
    assert dumps(document) == _reference(document)
