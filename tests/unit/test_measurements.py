"""Measured values: masked for the comparison with the recording, checked by their claims instead."""

from __future__ import annotations

import pytest

from handbook.execution.measurements import (
    MAX_CLAIM_CHARS,
    ClaimError,
    broken_claims,
    claim_for,
    claim_holds,
    masked,
    measurements,
)

OUTPUT = """\
vector code for this CPU: AVX2 (measured; claim: one of AVX2, NEON, DEFAULT)
F.silu vs silu_naive: 3.45x (measured; claim: > 2 with AVX2 or AVX512, > 0.67 otherwise)
an ordinary line: 3.45x
silu_iter vs silu_naive: 1.05x (measured; claim: between 0.67 and 1.5)"""


def test_only_the_measured_numbers_are_masked_their_units_kept():
    assert masked(OUTPUT) == (
        "vector code for this CPU: <measured> (measured; claim: one of AVX2, NEON, DEFAULT)\n"
        "F.silu vs silu_naive: <measured>x (measured; claim: > 2 with AVX2 or AVX512, > 0.67 otherwise)\n"
        "an ordinary line: 3.45x\n"
        "silu_iter vs silu_naive: <measured>x (measured; claim: between 0.67 and 1.5)"
    )


def test_another_unit_is_another_output():
    """`3.1x` and `3.1ms` both hold `> 2`: the unit is what the recording says, and is compared."""
    assert masked(OUTPUT.replace("3.45x (", "3.45ms (")) != masked(OUTPUT)
    assert masked("t: 3 (measured; claim: > 2)") != masked("t: 3s (measured; claim: > 2)")


def test_another_value_masks_alike_and_another_claim_does_not():
    assert masked(OUTPUT.replace("3.45x (", "9.99x (")) == masked(OUTPUT)
    assert masked(OUTPUT.replace("between 0.67", "between 0.5")) != masked(OUTPUT)
    assert masked(OUTPUT.replace("an ordinary line: 3.45x", "an ordinary line: 9.99x")) != masked(OUTPUT)


def test_measurements_are_found_with_their_lines():
    found = measurements(OUTPUT)
    assert [(m.line, m.label, m.text) for m in found] == [
        (1, "vector code for this CPU", "AVX2"),
        (2, "F.silu vs silu_naive", "3.45x"),
        (4, "silu_iter vs silu_naive", "1.05x"),
    ]


@pytest.mark.parametrize(
    ("claim", "text", "holds"),
    [
        ("> 2", "2.5x", True),
        ("> 2", "2x", False),
        (">= 2", "2x", True),
        ("< 0.8", "0.46x", True),
        ("<= 0.8", "0.9", False),
        ("between 0.5 and 2", "1.0x", True),
        ("between 0.5 and 2", "2.1x", False),
        ("one of AVX2, NEON, DEFAULT", "NEON", True),
        ("one of AVX2, NEON, DEFAULT", "AVX512", False),
    ],
)
def test_claims(claim, text, holds):
    assert claim_holds(claim, text) is holds


def test_a_branch_is_chosen_by_the_cpu_capability():
    claim = "> 2 with AVX2 or AVX512, > 0.67 otherwise"
    assert claim_for(claim, "AVX2") == claim_for(claim, "AVX512") == "> 2"
    assert claim_for(claim, "DEFAULT") == claim_for(claim, "SVE256") == "> 0.67"


def test_a_broken_claim_names_the_line_the_value_the_claim_and_its_branch():
    slow = OUTPUT.replace("3.45x (", "1.12x (")
    assert broken_claims(slow, "DEFAULT") == []
    assert broken_claims(slow, "AVX2") == [
        "output line 2: F.silu vs silu_naive: measured 1.12x, which does not hold the claim "
        "> 2 with AVX2 or AVX512, > 0.67 otherwise (its branch for AVX2: > 2)"
    ]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("x: 1.0 (measured; claim: about 1)", "is not one of"),
        ("x: fast (measured; claim: > 1)", "is not a number"),
        ("x: 1.0 (measured; claim: between 2 and 1)", "lower bound must be below"),
        ("x: 1.0 (measured; claim: > 2 with AVX2)", "ends with '<claim> otherwise'"),
        ("x: 1.0 (measured; claim: > 2 on AVX2, > 1 otherwise)", "is not '<claim> with"),
        (f"x: 1.0 (measured; claim: > {'1' * MAX_CLAIM_CHARS})", "longer than"),
        # Read as 1 and as 3 they would hold: a number is ASCII digits with no exponent.
        ("x: 1e-9x (measured; claim: between 0.5 and 2)", "is not a number"),
        ("x: \u0663x (measured; claim: > 2)", "is not a number"),
        ("x: 3x (measured; claim: > \u0662)", "is not one of"),
        # A capability is one ATen names, as it names it: a branch no machine takes checks nothing.
        ("x: 1.0x (measured; claim: > 100 with avx2, > 0.5 otherwise)", "is not '<claim> with"),
        ("x: 1.0x (measured; claim: > 100 with AVX3, > 0.5 otherwise)", "'AVX3' is not a CPU capability"),
    ],
)
def test_a_claim_that_cannot_be_read_is_broken_and_says_why(line, problem):
    (message,) = broken_claims(line, "AVX2")
    assert message.startswith("output line 1: ") and problem in message
    with pytest.raises(ClaimError):
        claim_holds(line.partition("claim: ")[2].removesuffix(")"), line.split(": ")[1].split(" ")[0])


def test_a_number_with_a_unit_is_broken_where_its_claim_also_allows_text():
    """Masked, `34x` keeps its `x` and `refused` has none: on a CPU that takes the text branch the
    line would differ from its recording (as attention's flex lines did under ATEN_CPU_CAPABILITY=default)."""
    claim = "> 20 with AVX2 or AVX512, one of refused otherwise"
    (message,) = broken_claims(f"first vs later: 34x (measured; claim: {claim})", "AVX2")
    assert message.startswith("output line 1: first vs later: 34x has a unit") and "print the number without" in message
    assert broken_claims(f"first vs later: 34 (measured; claim: {claim})", "AVX2") == []
    assert broken_claims(f"first vs later: refused (measured; claim: {claim})", "DEFAULT") == []
    assert masked(f"a: 34 (measured; claim: {claim})") == masked(f"a: refused (measured; claim: {claim})")


def test_two_claims_on_one_line_are_broken():
    line = "a: 1.0x (measured; claim: > 100) b: 1.0x (measured; claim: > 0.5)"
    assert broken_claims(line, "AVX2") == ["output line 1: two measured values on one line; print one claim a line"]


def test_a_claim_that_names_known_capabilities_applies_its_branch():
    claim = "> 2 with AVX2 or AVX512, > 0.67 otherwise"
    assert claim_for(claim, "AVX2") == "> 2" and claim_for(claim, "SVE256") == "> 0.67"


def test_masking_and_checking_are_linear_on_megabytes(timed):
    seconds = timed("""
        import time
        from handbook.execution.measurements import broken_claims, masked
        texts = [
            "a: " * 2**20 + "1x (measured; claim: > 0)",
            ("x: 1.0 (measured; claim: > 0)\\n") * 2**16,
            " (measured; claim: " * 2**17 + ")",
            "x: 1 (measured; claim: " + "> 1 with A, " * 2**16 + "> 0 otherwise)",
        ]
        started = time.perf_counter()
        for text in texts:
            masked(text)
            broken_claims(text, "AVX2")
        print(time.perf_counter() - started)
    """)
    assert seconds < 10
