"""What an object file's machine code is, as cuobjdump shows it, and the grader's requirements
on it (the "technique" entries of exercises/NN_name/grading.json; docs/grading.md has their format).

    compiled = Compiled.parse(cuobjdump_sass_text, cuobjdump_res_usage_text)
    status, why = check_requirement(rule, compiled)      # "PASS", "FAIL" or "SKIP"
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

CHECKS = ("instructions", "shared_bytes", "no_local_memory")
# One SASS line: /*0070*/   @!P0 LDG.E.64.CONSTANT R2, desc[UR4][R2.64] ;
INSTRUCTION_RE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")
# On sm_90 and newer, cuobjdump's SHARED includes 1 KiB the system reserves in every block that
# uses shared memory; the tile itself is the rest.
RESERVED_SHARED_FROM_SM, RESERVED_SHARED_BYTES = 90, 1024


@dataclass
class Compiled:
    """The code and resources of every function, per SASS architecture (90 for sm_90)."""

    code: dict = field(default_factory=dict)  # arch -> function -> [(opcode, operands)] in address order
    resources: dict = field(default_factory=dict)  # arch -> function -> {"REG": .., "SHARED": .., ...}

    @classmethod
    def parse(cls, sass: str, res_usage: str) -> Compiled:
        """From the output of `cuobjdump -sass` and of `cuobjdump -res-usage` on one object."""
        compiled = cls()
        for arch, function, line in elf_sections(sass):
            listing = compiled.code.setdefault(arch, {}).setdefault(function, [])
            match = INSTRUCTION_RE.match(line)
            if match:
                listing.append((match.group(2), match.group(3).strip()))
        for arch, function, line in elf_sections(res_usage):
            counts = dict(re.findall(r"\b([A-Z]+):(\d+)", line))
            if "SHARED" in counts:
                compiled.resources.setdefault(arch, {})[function] = {k: int(v) for k, v in counts.items()}
        return compiled

    def kernel_names(self) -> list[str]:
        """The functions' plain names, transpose_float2 for _Z16transpose_float2PKfPfmm (what ncu matches)."""
        names = set()
        for function in (f for functions in self.code.values() for f in functions):
            match = re.match(r"_ZL?(\d+)", function)
            names.add(function[match.end():match.end() + int(match.group(1))] if match else function)
        return sorted(names)


def rule_problem(rule) -> str | None:
    """What is wrong with one "technique" entry of a grading.json, or None."""
    if not isinstance(rule, dict) or not isinstance(rule.get("what"), str):
        return 'every "technique" entry needs a "what" that says it in words'
    if rule.get("check") not in CHECKS:
        return f'"check" must be one of {", ".join(CHECKS)}, not {rule.get("check")!r}'
    if rule["check"] == "instructions" and not isinstance(rule.get("opcode"), str):
        return 'an "instructions" requirement needs an "opcode" (a regular expression)'
    for key in ("opcode", "operands", "function"):
        try:
            re.compile(rule.get(key) or "")
        except re.error as e:
            return f'"{key}" of {rule["what"]!r} is not a regular expression: {e}'
    return None


def elf_sections(text: str):
    """(arch, function, line) for every line of cuobjdump's machine code inside a function.

    PTX sections are skipped: only SASS says what the GPU runs.
    """
    arch, function, in_elf = 0, None, False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Fatbin"):
            in_elf, arch, function = stripped.startswith("Fatbin elf"), 0, None
        elif in_elf and (match := re.match(r"arch = sm_(\d+)", stripped)):
            arch = int(match.group(1))
        elif in_elf and (match := re.match(r"Function\s*:?\s*(\S+?):?$", stripped)):
            function = match.group(1)
        elif in_elf and function:
            yield arch, function, line


def opcode_parts(opcode: str) -> tuple[str, set]:
    """LDG.E.64.CONSTANT -> ("LDG", {"E", "64", "CONSTANT"})."""
    base, *modifiers = opcode.split(".")
    return base, set(modifiers)


def matching(listing: list, rule: dict) -> list[str]:
    """The opcodes of a listing that an "instructions" requirement counts."""
    base_re = re.compile(rule["opcode"])
    with_all, with_any, without = (set(rule.get(k, [])) for k in ("with", "with_any", "without"))
    operands_re = re.compile(rule["operands"]) if rule.get("operands") else None
    found = []
    for opcode, operands in listing:
        base, modifiers = opcode_parts(opcode)
        if not base_re.fullmatch(base) or not with_all <= modifiers or without & modifiers:
            continue
        if (with_any and not with_any & modifiers) or (operands_re and not operands_re.search(operands)):
            continue
        found.append(opcode)
    return found


def functions_of(rule: dict, arch: int, compiled: Compiled) -> tuple[dict, dict]:
    """(code, resources) of the functions a requirement looks at on one architecture: all of
    the file's, or with "function" those whose (mangled) name the regular expression finds."""
    code, resources = compiled.code.get(arch, {}), compiled.resources.get(arch, {})
    if rule.get("function"):
        name_re = re.compile(rule["function"])
        code = {f: c for f, c in code.items() if name_re.search(f)}
        resources = {f: r for f, r in resources.items() if name_re.search(f)}
    return code, resources


def tile_bytes(arch: int, shared: int) -> int:
    """The block's own shared memory, without what the system reserves."""
    reserved = arch >= RESERVED_SHARED_FROM_SM and shared >= RESERVED_SHARED_BYTES
    return shared - RESERVED_SHARED_BYTES if reserved else shared


def measure(rule: dict, arch: int, compiled: Compiled) -> tuple[int, str]:
    """The number a requirement bounds on one architecture, and how it was found (-1: no function)."""
    code, resources = functions_of(rule, arch, compiled)
    if rule.get("function") and not code and not resources:
        return -1, f"no compiled function whose name matches {rule['function']!r}"
    if rule["check"] == "instructions":
        found = [op for listing in code.values() for op in matching(listing, rule)]
        return len(found), tally(found) or "none"
    if rule["check"] == "shared_bytes":
        tile = max((tile_bytes(arch, r.get("SHARED", 0)) for r in resources.values()), default=0)
        return tile, f"{tile} bytes of shared memory"
    spills = [op for listing in code.values() for op, _ in listing if opcode_parts(op)[0] in ("LDL", "STL")]
    local, stack = (sum(r.get(k, 0) for r in resources.values()) for k in ("LOCAL", "STACK"))
    return local + stack + len(spills), f"LOCAL:{local} STACK:{stack}, {len(spills)} LDL/STL"


def what_is_there(rule: dict, arch: int, compiled: Compiled) -> str:
    """For a missing instruction: the instructions of the same kind the code does have."""
    if rule["check"] != "instructions" or rule.get("min") is None:
        return ""
    base_re = re.compile(rule["opcode"])
    code = functions_of(rule, arch, compiled)[0]
    present = tally([op for listing in code.values() for op, _ in listing if base_re.fullmatch(opcode_parts(op)[0])])
    return f" (the code has {present})" if present and present != measure(rule, arch, compiled)[1] else ""


def tally(opcodes: list[str]) -> str:
    """2 x LDG.E, 1 x LDG.E.64: how many of each opcode."""
    return ", ".join(f"{n} x {op}" for op, n in sorted(Counter(opcodes).items()))


def check_requirement(rule: dict, compiled: Compiled) -> tuple[str, str]:
    """One requirement on every SASS architecture of the object it applies to: (status, why)."""
    archs = sorted(a for a in compiled.code if a >= rule.get("min_sm", 0))
    if not archs:
        built = ", ".join(f"sm_{a}" for a in sorted(compiled.code)) or "no machine code"
        return "SKIP", f"{rule['what']}: needs sm_{rule.get('min_sm', 0)} or newer, this build has {built}"
    low, high = (None, 0) if rule["check"] == "no_local_memory" else (rule.get("min"), rule.get("max"))
    for arch in archs:
        value, found = measure(rule, arch, compiled)
        if value < 0 or (low is not None and value < low) or (high is not None and value > high):
            return "FAIL", f"{rule['what']}: found {found} on sm_{arch}{what_is_there(rule, arch, compiled)}"
    return "PASS", f"{rule['what']} (sm_{archs[-1]}: {measure(rule, archs[-1], compiled)[1]})"
