"""What an object file's machine code is, as cuobjdump shows it, and the grader's requirements
on it (the "technique" entries of exercises/NN_name/grading.json; docs/grading.md has their format).

    compiled = Compiled.parse(cuobjdump_sass_text, cuobjdump_res_usage_text)
    status, why = check_requirement(rule, compiled)      # "PASS", "FAIL" or "SKIP"
    outside = calls_outside(undefined_symbols, rules.get("allow_symbols", []))   # what it may not call
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
# What a graded file's host code may call outside itself (`nm -u` on its object), as full-match regular
# expressions: what the skeletons, solutions and steps' launchers call. Anything else (a library such as
# cuBLAS, a copy through the host, another file's launcher or kernel, a host callback) would do work
# that is not the file's own kernels'. An exercise's grading.json may allow more ("allow_symbols").
ALLOWED_SYMBOLS = (
    r"__cuda[A-Za-z]+",  # what <<<...>>> and __global__ compile to: registration and launch, nvcc's own
    r"cudaLaunchKernel(ExC)?(_ptsz)?|cudaGetDevice|cudaDeviceGetAttribute|cudaGetDeviceProperties(_v2)?",
    r"cudaFuncSetAttribute|cudaFuncGetAttributes|cudaOccupancyMaxActiveBlocksPerMultiprocessor(WithFlags)?",
    r"cudaGetLastError|cudaPeekAtLastError|cudaGetErrorString|cudaGetErrorName",
    # Waiting, timing and device scratch: a careful launcher's, and no way to move the work off the GPU
    # (host, managed and mapped memory are not here: a kernel could hand the work to the host through them).
    r"cuda(Device|Stream|Event)Synchronize|cudaEvent(Create|Record|ElapsedTime|Destroy)|cudaMalloc|cudaFree",
    r"cudaMemset(Async)?|cudaGetDeviceCount|cudaLaunchCooperativeKernel",
    r"copy_kernel_launch(_16)?|cuda_fail",  # the harness's: a vector's transpose is a copy; CUDA_CHECK
    # A parameter, a message; glibc may name them __isoc23_sscanf or __fprintf_chk (_FORTIFY_SOURCE).
    r"getenv|strcmp|(__isoc[0-9]+_)?sscanf|(__)?v?[fs]?n?printf(_chk)?|puts|fputs|fputc|putchar|fflush|stdout|stderr",
    r"atexit|__cxa_atexit|__cxa_guard_(acquire|release|abort)|__gxx_personality_v0|_Unwind_Resume"
    r"|__stack_chk_fail|__dso_handle|_GLOBAL_OFFSET_TABLE_|memcpy|memmove|memset",  # C and C++ runtime support
)


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
            if match := INSTRUCTION_RE.match(line):
                listing.append((match.group(2), match.group(3).strip()))
        for arch, function, line in elf_sections(res_usage):
            counts = dict(re.findall(r"\b([A-Z]+):(\d+)", line))
            if "SHARED" in counts:
                compiled.resources.setdefault(arch, {})[function] = {k: int(v) for k, v in counts.items()}
        return compiled

    def functions(self) -> set[str]:
        """The mangled names of the functions, on any architecture."""
        return {f for functions in self.code.values() for f in functions}

    def kernel_names(self) -> list[str]:
        """The functions' plain names (what ncu matches)."""
        return sorted({plain_name(f) for f in self.functions()})


def plain_name(mangled: str) -> str:
    """transpose_float2 for _Z16transpose_float2PKfPfmm; a name that is not mangled so stays as it is."""
    match = re.match(r"_ZL?(\d+)", mangled)
    return mangled[match.end():match.end() + int(match.group(1))] if match else mangled


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


def calls_outside(undefined: list[str], allowed: list[str]) -> list[str]:
    """The symbols an object needs from elsewhere that neither ALLOWED_SYMBOLS nor `allowed` allows."""
    patterns = [re.compile(p) for p in (*ALLOWED_SYMBOLS, *allowed)]
    return [name for name in undefined if not any(p.fullmatch(name) for p in patterns)]


def elf_sections(text: str):
    """(arch, function, line) for every line of cuobjdump's machine code inside a function; PTX is skipped."""
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


def matching(listing: list, rule: dict) -> list[str]:
    """The opcodes of a listing that an "instructions" requirement counts."""
    base_re = re.compile(rule["opcode"])
    with_all, with_any, without = (set(rule.get(k, [])) for k in ("with", "with_any", "without"))
    operands_re = re.compile(rule.get("operands") or "")
    found = []
    for opcode, operands in listing:
        base, *rest = opcode.split(".")  # LDG.E.64.CONSTANT: LDG with the modifiers E, 64 and CONSTANT
        modifiers = set(rest)
        if (base_re.fullmatch(base) and with_all <= modifiers and not without & modifiers
                and (not with_any or with_any & modifiers) and operands_re.search(operands)):
            found.append(opcode)
    return found


def functions_of(rule: dict, arch: int, compiled: Compiled) -> tuple[dict, dict]:
    """(code, resources) on one architecture of all functions, or of those whose name "function" finds."""
    name_re = re.compile(rule.get("function") or "")
    return ({f: c for f, c in compiled.code.get(arch, {}).items() if name_re.search(f)},
            {f: r for f, r in compiled.resources.get(arch, {}).items() if name_re.search(f)})


def measure(rule: dict, arch: int, compiled: Compiled) -> tuple[int, str]:
    """The number a requirement bounds on one architecture, and how it was found (-1: no function)."""
    code, resources = functions_of(rule, arch, compiled)
    if rule.get("function") and not code and not resources:
        return -1, f"no compiled function whose name matches {rule['function']!r}"
    if rule["check"] == "instructions":
        found = [op for listing in code.values() for op in matching(listing, rule)]
        return len(found), tally(found) or "none"
    if rule["check"] == "shared_bytes":
        reserved = RESERVED_SHARED_BYTES if arch >= RESERVED_SHARED_FROM_SM else 0
        shared = [r.get("SHARED", 0) for r in resources.values()]
        tile = max((s - reserved if s >= reserved else s for s in shared), default=0)  # the block's own
        return tile, f"{tile} bytes of shared memory"
    spills = [op for listing in code.values() for op, _ in listing if op.split(".")[0] in ("LDL", "STL")]
    local, stack = (sum(r.get(k, 0) for r in resources.values()) for k in ("LOCAL", "STACK"))
    return local + stack + len(spills), f"LOCAL:{local} STACK:{stack}, {len(spills)} LDL/STL"


def what_is_there(rule: dict, arch: int, compiled: Compiled) -> str:
    """For a missing instruction: those of the same opcode the code does have (the rule less its other keys)."""
    if rule["check"] != "instructions" or rule.get("min") is None:
        return ""
    present = measure({key: rule.get(key) for key in ("check", "opcode", "function")}, arch, compiled)[1]
    return f" (the code has {present})" if present not in ("none", measure(rule, arch, compiled)[1]) else ""


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
