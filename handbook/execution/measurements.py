"""Measured values: what a block measures (a timing ratio, say) is shown as measured, never recorded as text.

A block prints a measurement as one line of its own, in this form:

    F.silu vs silu_naive: 7.31x (measured; claim: > 2)
    silu_iter vs silu_naive: 1.02x (measured; claim: between 0.5 and 2)

that is `<label>: <number><unit> (measured; claim: <claim>)`, one a line, where the claim is one
of `> N`, `>= N`, `< N`, `<= N` or `between A and B` (numbers in ASCII digits, no exponent).
A value that is a choice the machine makes (a set of compiler flags, say) is text, and its claim lists what it may be:

    vector code for this CPU: AVX2 (measured; claim: one of AVX2, NEON, DEFAULT)

Where what holds depends on the vector instructions ATen dispatches to, a claim names the
CPU capabilities of its branches and ends with the one that holds everywhere else:

    F.silu vs silu_naive: 3.45x (measured; claim: > 2 with AVX2 or AVX512, > 0.8 otherwise)

The comparison with the recording masks the number (`<label>: <measured>x (measured;
claim: ...)`), so the label, the unit and the claim are recorded and reviewed like any
output (a capability a claim names is one of `CAPABILITIES`); the number is checked against
its claim instead, in every build. A claim is chosen with a margin that holds on every
supported machine (CONTRIBUTING.md, "Measured values"),
and the page shows the number measured in the build, with the machine it was measured on.

Parsing is by string splitting, linear in the output's length, like the normalisers.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

MARK = " (measured; claim: "
MASK = "<measured>"
# Numbers as written in ASCII digits, with no exponent (`1e-9x` is not 1, `٣` is not 3); a unit is letters,
# `%`, or a rate (`GB/s`), compared with the recording's as text (`3.1x` against `3.1ms` is a drift).
NUMBER = r"-?[0-9]+(?:\.[0-9]+)?"
VALUE = re.compile(rf"(?P<number>{NUMBER})(?P<unit>[A-Za-z%]+(?:/[A-Za-z]+)?)?", re.ASCII)
BOUND = re.compile(rf"(?P<op>>=|<=|>|<) ?(?P<number>{NUMBER})", re.ASCII)
ONE_OF = re.compile(r"one of (?P<choices>.+)")
BETWEEN = re.compile(rf"between (?P<low>{NUMBER}) and (?P<high>{NUMBER})", re.ASCII)
BRANCH = re.compile(r"(?P<claim>.+?) with (?P<capabilities>[A-Z0-9]+(?: or [A-Z0-9]+)*)", re.ASCII)
# The CPU capabilities ATen dispatches to (`torch.backends.cpu.get_cpu_capability()`), as a claim names them.
CAPABILITIES = ("DEFAULT", "AVX2", "AVX512", "SVE128", "SVE256", "VSX", "ZVECTOR")
MAX_CLAIM_CHARS = 200  # a claim and a value are short; bounding them keeps every match linear
OPERATORS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


class ClaimError(ValueError):
    """A measurement line whose value or claim cannot be read."""


@dataclass(frozen=True)
class Measurement:
    line: int  # 1-based line of the output
    label: str
    text: str  # the value as printed, unit included: `7.31x`
    claim: str

    def holds(self, capability: str) -> bool:
        return claim_holds(claim_for(self.claim, capability), self.text)


def claim_for(claim: str, capability: str) -> str:
    """The branch of a claim that applies on a machine whose ATen CPU capability is `capability`."""
    *branches, (fallback, _) = _branches(claim)
    return next((branch for branch, named in branches if capability in named), fallback)


def _branches(claim: str) -> list[tuple[str, list[str]]]:
    """Each branch of a claim with the CPU capabilities it names, the fallback last (naming none);
    a claim without branches is its own fallback. Raises ClaimError for a claim that cannot be read."""
    if len(claim) > MAX_CLAIM_CHARS:
        raise ClaimError(f"claim {claim[:40]!r}... is longer than {MAX_CLAIM_CHARS} characters")
    if " otherwise" not in claim and " with " not in claim:
        return [(claim, [])]
    *branches, fallback = [part.strip() for part in claim.split(",")]
    if not fallback.endswith(" otherwise"):
        raise ClaimError(f"claim {claim!r}: a claim with branches ends with '<claim> otherwise'")
    parsed = []
    for branch in branches:
        match = BRANCH.fullmatch(branch)
        if match is None:
            raise ClaimError(f"claim {claim!r}: branch {branch!r} is not '<claim> with <CAPABILITY> [or ...]'")
        named = match["capabilities"].split(" or ")
        if unknown := [name for name in named if name not in CAPABILITIES]:
            raise ClaimError(f"claim {claim!r}: {unknown[0]!r} is not a CPU capability ({', '.join(CAPABILITIES)})")
        parsed.append((match["claim"], named))
    return [*parsed, (fallback.removesuffix(" otherwise").strip(), [])]


def claim_holds(claim: str, text: str) -> bool:
    """Whether a value printed as `text` satisfies `claim` (`> 2`, `<= 0.5`, `between 0.5 and 2`,
    `one of AVX2, DEFAULT`). Raises ClaimError for a claim or a value that cannot be read."""
    claim = claim.strip()
    if len(claim) > MAX_CLAIM_CHARS or len(text) > MAX_CLAIM_CHARS:
        raise ClaimError(f"a claim or measured value is longer than {MAX_CLAIM_CHARS} characters")
    if match := ONE_OF.fullmatch(claim):
        return text in [choice.strip() for choice in match["choices"].split(",")]
    number = VALUE.fullmatch(text)
    if number is None:
        raise ClaimError(f"measured value {text[:80]!r} is not a number (with a unit), as claim {claim!r} needs")
    value = float(number["number"])
    if match := BETWEEN.fullmatch(claim):
        low, high = float(match["low"]), float(match["high"])
        if low >= high:
            raise ClaimError(f"claim {claim!r}: the lower bound must be below the upper one")
        return low < value < high
    if match := BOUND.fullmatch(claim):
        return OPERATORS[match["op"]](value, float(match["number"]))
    raise ClaimError(f"claim {claim!r} is not one of '> N', '>= N', '< N', '<= N', 'between A and B', 'one of A, B'")


def _split(line: str) -> tuple[str, str, str] | None:
    """(label, value text, claim) of a measurement line; None for any other line."""
    if not line.endswith(")") or MARK not in line:
        return None
    head, _, claim = line[:-1].rpartition(MARK)
    label, separator, value = head.rpartition(": ")
    if not separator:
        return None
    return label, value, claim


def _unit(value: str) -> str | None:
    """The unit of a value written as a number (`3.1ms` -> `ms`, `3` -> ``); None for one that is text."""
    number = VALUE.fullmatch(value)
    return (number["unit"] or "") if number else None


def measurements(output: str) -> list[Measurement]:
    """Every measurement line of an output, in order."""
    found = []
    for number, line in enumerate(output.split("\n"), 1):
        parts = _split(line)
        if parts is None:
            continue
        found.append(Measurement(number, *parts))
    return found


def masked(output: str) -> str:
    """The output as it is compared with its recording: each measured value replaced by `<measured>`."""
    lines = output.split("\n")
    for index, line in enumerate(lines):
        parts = _split(line)
        if parts is not None:
            label, value, claim = parts
            unit = _unit(value)
            lines[index] = (
                f"{label}: {MASK}{unit or ''}{MARK}{claim})" if unit is not None else f"{label}: {MASK}{MARK}{claim})"
            )
    return "\n".join(lines)


def broken_claims(output: str, capability: str) -> list[str]:
    """What is wrong with the measurements of an output, measured on a machine with that ATen CPU
    capability: claims that do not hold, or cannot be read."""
    broken = []
    for measured in measurements(output):
        if MARK in measured.label:
            broken.append(f"output line {measured.line}: two measured values on one line; print one claim a line")
            continue
        try:
            if _unit(measured.text) and any(ONE_OF.fullmatch(branch) for branch, _ in _branches(measured.claim)):
                broken.append(
                    f"output line {measured.line}: {measured.label}: {measured.text} has a unit, and its claim "
                    f"{measured.claim} also allows text, which has none: where the text is printed, the line "
                    "differs from its recording by the unit; print the number without a unit"
                )
                continue
            if not measured.holds(capability):
                applied = claim_for(measured.claim, capability)
                branch = f" (its branch for {capability}: {applied})" if applied != measured.claim else ""
                broken.append(
                    f"output line {measured.line}: {measured.label}: measured {measured.text}, which does not hold "
                    f"the claim {measured.claim}{branch}"
                )
        except ClaimError as error:
            broken.append(f"output line {measured.line}: {error}")
    return broken
