"""Nsight Compute counters of the kernels, as a table and in docs/results/<gpu>-profile.csv.

    make profile STEP=06 [ARGS="--shapes 8192x8192 --variant shared_32x8"]
        python3 -m lab.profile step 06 build/step06 [program arguments]
    make profile-plan [STEPS="11 12"]     the step rows of lab/profile_plan.csv -> <gpu>-profile.csv
        python3 -m lab.profile plan [--steps 11,12] [--gpu h200]
    make peers-profile                    the peers rows of the plan -> <gpu>-peers-profile.csv
        python3 -m lab.profile peers [--lib build/peers/libtutorial.so] [--gpu h200]

Each kernel variant of a program (the one --variant names, or every one this
GPU can run) is profiled in one --check-only run (no timing, no baselines; ncu
leaves the clocks as the benchmarks find them), at 4096 x 4096 unless the
program arguments give a shape. A plan row's baselines add the copy kernel
and cuBLAS from one timed run. A peer is profiled inside the NVTX range
`once` of `python3 -m lab.peers --once`.

The plan, lab/profile_plan.csv, is what a full session profiles, one row per
group: a step at a shape (a matrix, or step 15's tensor DIMSxDIMS...:PERM,
saved as the matrix its program reports; variant: one, or empty for all;
baselines: yes or no), or some peers at a shape; each collects every metric
of lab.metrics.
plan_covers_templates() lets a test check that the write-ups ask only for what
the plan measures.

NCU=/path/to/ncu names ncu. Exit codes: 0 done; 1 a wrong result, or ncu
profiled nothing; 2 bad command line; 3 no GPU, no ncu, no access to the counters.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lab import machine, metrics, results, schema
from lab.machine import Stop

PLAN = Path(__file__).with_name("profile_plan.csv")
# Every kernel but the harness's L2 flush and hold. The hold must not be profiled: ncu
# stops the host at each profiled launch, so the host could never release it.
NOT_HARNESS = "regex:^(?!(flush_by_reading|hold_until_released)$)"
PEERS_STEP = "peers"  # the step column of the peers' rows


@dataclass
class Column:
    """One profiled kernel: a column of the table."""

    kernel: str  # the results' kernel: a variant, copy_kernel, cublas, a peer
    role: str
    function: str  # the kernel function ncu saw
    values: dict  # metric -> value, as text


class Ncu:
    """Runs commands under ncu; forgets (with a warning) the metrics this ncu or GPU lacks."""

    def __init__(self, wanted: list[str]):
        self.path = machine.find_tool("ncu", "NCU")
        self.metrics = list(wanted)

    def launches(self, filters: list[str], command: list[str], what: str) -> pd.DataFrame:
        """ncu's row of every profiled launch of command."""
        while True:
            with tempfile.TemporaryDirectory() as tmp:
                log = Path(tmp, "ncu.csv")
                done = subprocess.run([self.path, "--clock-control", "none", "--csv", "--page", "raw",
                                       "--print-units", "base", "--kernel-name-base", "function", "--metrics",
                                       ",".join(self.metrics), "--log-file", str(log), *filters, *command],
                                      capture_output=True, text=True, cwd=machine.ROOT)
                text = log.read_text() if log.is_file() else ""
            everything = "\n".join((text, done.stdout, done.stderr))
            if not self.drop_unknown(everything):
                break
        stop_on_failure(done, everything, what)
        table = metrics.read_ncu_csv(text)
        if table.empty:
            errors = [line for line in everything.splitlines() if "==ERROR==" in line or line.startswith("error:")]
            raise Stop(f"ncu profiled nothing for {what} (exit {done.returncode}): "
                       f"{'; '.join(errors[:3]) or 'no kernel matched'}", machine.EXIT_WRONG)
        return table

    def drop_unknown(self, log: str) -> bool:
        """Drop the metrics ncu says it cannot find (asking for a fallback instead); True if any."""
        complaints = [line for line in log.splitlines() if "Failed to find metric" in line or "Invalid metric" in line]
        unknown = [m for m in self.metrics
                   if any(re.search(rf"(?<!\w){re.escape(m.split('.')[0])}(?!\w)", line) for line in complaints)]
        for metric in unknown:
            self.metrics.remove(metric)
            instead = metrics.FALLBACK.get(metric)
            self.metrics += [instead] if instead else []
            machine.say(f"warning: ncu does not know {metric} here; {f'using {instead}' if instead else 'dropped'}")
        return bool(unknown)


def stop_on_failure(done, log: str, what: str) -> None:
    """Stop with the right exit code when the program could not run under ncu or was wrong."""
    if "ERR_NVGPUCTRPERM" in log:
        raise Stop("ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): run as root or allow "
                   "profiling for all users (NVreg_RestrictProfilingToAdminUsers=0)")
    if done.returncode == machine.EXIT_ENVIRONMENT:
        first = next((line for line in done.stderr.splitlines() if line.startswith("error:")), "error: failed")
        raise Stop(f"{what} could not run under ncu: {first.removeprefix('error: ')}")
    if done.returncode == machine.EXIT_WRONG and "==ERROR==" not in log:
        machine.say(done.stdout[-2000:] + done.stderr[-2000:])
        raise Stop(f"{what} gave a wrong result under ncu", machine.EXIT_WRONG)


def columns(table: pd.DataFrame, kernel: str, role: str, wanted: list[str]) -> list[Column]:
    """The first launch of each kernel function, in launch order; a second function of one
    variant is named variant:function."""
    out = []
    for i, (function, launches) in enumerate(table.groupby("Kernel Name", sort=False)):
        first = launches.iloc[0]
        numbers = pd.to_numeric(first.reindex(wanted).astype(str).str.replace(",", ""), errors="coerce").dropna()
        values = {m: first[m].replace(",", "") for m in numbers.index}  # as ncu wrote them, less the commas
        ratios = metrics.derive(numbers.to_dict())
        values.update({name: f"{ratio:.2f}".rstrip("0").rstrip(".") for name, ratio in ratios.items()})
        out.append(Column(kernel if i == 0 else f"{kernel}:{function}", role, function, values))
    return out


def variants(program: str, wanted: str | None, capability: int) -> list[tuple[str, str]]:
    """(name, role) of the variants to profile: the one asked for, or every one this GPU can run."""
    listed = subprocess.run([program, "--list-variants"], capture_output=True, text=True)
    rows = [line.split("\t") for line in listed.stdout.splitlines() if line.count("\t") >= 3]
    if listed.returncode or not rows:
        raise Stop(f"{program} --list-variants listed nothing (exit {listed.returncode})")
    if wanted:
        return [next(((n, role) for n, _, role, _ in rows if n == wanted), (wanted, "kernel"))]
    for name, min_cc, _, _ in rows:
        if int(min_cc) > capability:
            machine.say(f"warning: {name} needs compute capability {int(min_cc) / 10:.1f}: not profiled")
    return [(name, role) for name, min_cc, role, _ in rows if int(min_cc) <= capability]


def profile_program(ncu: Ncu, program: str, shape_args: list[str], variant: str | None,
                    baselines: bool) -> list[Column]:
    """The step's own kernels, one run each, and with baselines the copy kernel and cuBLAS."""
    chosen = variants(program, variant, machine.gpu()[1])
    found = []
    for name, role in chosen:
        # --check-only runs the variant's kernels and nothing else (no timing: no flush, no hold, no baselines).
        table = ncu.launches(["--kernel-name", NOT_HARNESS], [program, "--check-only", "--variant", name,
                                                              *shape_args], name)
        found += columns(table, name, role, ncu.metrics)
    if baselines:  # every kernel that is neither the step's own nor the copy is the library's
        table = ncu.launches(["--kernel-name", NOT_HARNESS], [program, "--variant", chosen[0][0], "--reps", "1",
                                                              "--warmup", "0", *shape_args], "baselines")
        own = {c.function for c in found}
        others = [c for c in columns(table, "", "", ncu.metrics) if c.function not in own]
        library = [c for c in others if "copy" not in c.function.lower()]
        for c in others:
            if c in library:
                c.kernel, c.role = ("cublas" if len(library) == 1 else f"cublas:{c.function}"), "library"
            else:
                c.kernel, c.role = "copy_kernel", "copy"
        found += others
    return found


def profile_peers(ncu: Ncu, lib: str, peers: list[str], shape: str) -> list[Column]:
    """Each peer's kernels in one run of lab.peers --once under ncu."""
    found = []
    for key in peers:
        command = [sys.executable, "-m", "lab.peers", "--once", "--lib", lib, "--peers", key, "--shapes", shape]
        table = ncu.launches(["--nvtx", "--nvtx-include", "once/"], command, f"{key} at {shape}")
        found += columns(table, key, "kernel" if key == "tutorial" else "library", ncu.metrics)
    return found


def show(title: str, found: list[Column]) -> None:
    """The table: one column per kernel, one row per metric, then the ncu name of each."""
    table = pd.DataFrame({c.kernel: c.values for c in found})
    table = table.reindex(metrics.in_table_order(list(table.index))).fillna("-")
    print(f"{title}: Nsight Compute, one launch per kernel, clocks not locked")
    print(table.set_axis([metrics.label(m) for m in table.index]).to_string())
    print("\nncu names:\n" + "\n".join(f"  {metrics.label(m):46} {metrics.explain(m)}" for m in table.index))
    print("kernels:\n" + "\n".join(f"  {c.kernel:46} {c.function}" for c in found) + "\n")


def load_profile(path: Path) -> pd.DataFrame:
    """A profile CSV, its whole numbers written back as whole numbers (pandas reads them as floats)."""
    frame = results.load(path, "profile")
    frame["value"] = frame["value"].map(lambda v: f"{v:.0f}" if isinstance(v, float) and v.is_integer() else v)
    return frame


def save(path: Path, gpu: str, step: str, shape: results.Shape, found: list[Column]) -> None:
    """Add the rows to a profile CSV."""
    new = pd.DataFrame([dict(kernel=c.kernel, role=c.role, metric=m, value=v) for c in found
                        for m, v in c.values.items()])
    new = new.assign(gpu=gpu, step=step, rows=shape.rows, cols=shape.cols, offset=shape.offset)
    if path.is_file():
        new = pd.concat([load_profile(path), new], ignore_index=True)
    results.write(new, path, "profile")


def write_env(path: Path, ncu: Ncu, fields: dict) -> None:
    """The env file beside a profile CSV, which the tables' source lines read: who wrote it last, when, with what."""
    version = subprocess.run([ncu.path, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    ncu_line = f"{version[-1] if version else '?'}, clocks not locked (--clock-control none)"
    machine.write_env(path.with_name(path.stem + "-env.txt"), {**fields, "ncu": ncu_line})


def read_plan() -> pd.DataFrame:
    return pd.read_csv(PLAN, dtype=str, keep_default_na=False)


TENSOR = re.compile(r"(?:[1-9][0-9]*x){0,5}[1-9][0-9]*:[0-5]{1,6}")  # a tensor and its permutation: 8x4096x32x128:0213


def saved_shape(text: str, build: Path) -> results.Shape:
    """The matrix a plan row is saved as: its shape, or for a tensor the matrix its program reports it as (the fold's
    count / cols x cols, which the step's CSV rows carry too)."""
    if not TENSOR.fullmatch(text):
        return results.Shape.parse(text)
    dims, perm = text.split(":")
    plan = machine.fold(dims.replace("x", ","), ",".join(perm), build)
    return results.Shape(plan["count"] // plan["cols"], plan["cols"])


def run_plan(args, peers: bool) -> int:
    """Every step row (or every peers row) of the plan, into the GPU's profile CSV.

    A full run starts the file afresh; --steps keeps the rows of the other steps."""
    plan, gpu_name = read_plan(), machine.gpu()[0]
    rows = plan[plan["peers"] != ""] if peers else plan[(plan["peers"] == "") & plan["step"].isin(args.steps)]
    path = results.path(args.gpu or results.gpu_slug(gpu_name), "peers-profile" if peers else "profile")
    kept_steps = []
    if path.is_file():
        kept = load_profile(path)
        kept = kept[~kept["step"].isin([PEERS_STEP] if peers else args.steps)]
        results.write(kept, path, "profile")
        kept_steps = sorted(kept["step"].astype(str).unique())
    ncu = Ncu(list(metrics.RAW))
    for row in rows.itertuples():
        if peers:
            found = profile_peers(ncu, args.lib, row.peers.split(), row.shape)
        else:
            found = profile_program(ncu, str(machine.program(args.build, row.step)), ["--shapes", row.shape],
                                    row.variant or None, row.baselines == "yes")
        show(f"{'Peers' if peers else 'Step ' + row.step} at {row.shape} on {gpu_name}", found)
        save(path, gpu_name, PEERS_STEP if peers else row.step, saved_shape(row.shape, Path(args.build)), found)
    write_env(path, ncu, {"gpu": gpu_name, "command": " ".join(["python3 -m lab.profile", *sys.argv[1:]]),
                          "plan": f"{len(rows)} rows of lab/profile_plan.csv",
                          "kept": f"{', '.join(kept_steps)} (rows of earlier runs; git log dates them)" if kept_steps
                          else "none"})
    machine.say(f"profile: wrote {os.path.relpath(path)}")
    return 0


def check_plan(plan: pd.DataFrame | None = None) -> list[str]:
    """What is wrong with the plan: unknown steps, shapes, peers or metrics."""
    from lab import peers as peer_table  # the peers' classes; their libraries load only when they run

    plan = read_plan() if plan is None else plan
    problems = []
    for line, row in enumerate(plan.itertuples(), start=2):
        where = f"lab/profile_plan.csv:{line}"
        tensor = TENSOR.fullmatch(row.shape)
        if tensor and row.step != machine.TENSOR_STEP:
            problems.append(f"{where}: a tensor ({row.shape}) is step {machine.TENSOR_STEP}'s only")
        try:
            offset = 0 if tensor else results.Shape.parse(row.shape).offset
        except ValueError as err:
            problems.append(f"{where}: {err}, or a tensor DIMSxDIMS...:PERM")
            continue
        if bool(row.step) == bool(row.peers):
            problems.append(f"{where}: a row names a step or some peers, not both or neither")
        if row.step and row.step not in [*machine.steps(), machine.STUDY]:
            problems.append(f"{where}: no step '{row.step}'")
        if row.step and row.baselines not in ("yes", "no"):
            problems.append(f"{where}: baselines is yes or no, not '{row.baselines}'")
        for key in row.peers.split():
            if key not in peer_table.BY_KEY or not peer_table.BY_KEY[key].profilable:
                problems.append(f"{where}: peer '{key}' cannot be profiled; those that can: "
                                + ", ".join(k for k, cls in peer_table.BY_KEY.items() if cls.profilable))
        if row.peers and offset:
            problems.append(f"{where}: the peers take no offset ({row.shape})")
    return problems


def template_calls():
    """(file:line, function, {argument: value}) of every profile(), peers_profile() and value(metric=...) call of
    the write-ups."""
    import jinja2

    from lab import docs  # the templates, as the docs engine finds them

    for template in docs.templates():
        for call in jinja2.Environment().parse(template.read_text()).find_all(jinja2.nodes.Call):
            name = getattr(call.node, "name", "")
            arguments = {k.key: getattr(k.value, "value", None) for k in call.kwargs}
            if name in ("profile", "peers_profile") or (name == "value" and "metric" in arguments):
                yield f"{template.relative_to(schema.ROOT)}:{call.lineno}", name, arguments


def covers(plan: pd.DataFrame, arguments: dict, step: str, kernel: str | None) -> bool:
    """Whether a step row of the plan gives this step's metrics (and kernel) at the shape."""
    for row in plan[(plan["step"] == step) & (plan["shape"] == arguments.get("shape"))].itertuples():
        baseline = kernel is not None and kernel.split(":")[0] in ("copy_kernel", "cublas")
        kernels_ok = row.baselines == "yes" if baseline else not row.variant or kernel in (None, row.variant)
        if kernels_ok:
            return True
    return False


def plan_covers_templates(plan: pd.DataFrame | None = None) -> list[str]:
    """The write-ups' profile() and value(metric=...) calls whose rows the plan would not produce."""
    plan = read_plan() if plan is None else plan
    problems = []
    for where, name, arguments in template_calls():
        shape = arguments.get("shape")
        shown = f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items() if k != 'metrics')})"
        steps = [s for s in str(arguments.get("steps") or arguments.get("step") or "").split(",") if s]
        wanted_kernels = str(arguments.get("kernel") or arguments.get("variant") or "").split(",")
        # One step gives every kernel listed; several give one each at least, and each kernel comes from one of them.
        every_kernel = all if len(steps) == 1 else any
        for step in steps:
            if not every_kernel(covers(plan, arguments, step, kernel or None) for kernel in wanted_kernels):
                problems.append(f"{where}: {shown}: the plan profiles no step {step} at {shape} with that")
        for kernel in wanted_kernels if len(steps) > 1 else []:
            if not any(covers(plan, arguments, step, kernel or None) for step in steps):
                problems.append(f"{where}: {shown}: the plan profiles {kernel} at {shape} in none of its steps")
        if name == "profile" and arguments.get("baselines") in ("yes", True) and steps:
            rows = plan[(plan["step"] == steps[-1]) & (plan["shape"] == shape) & (plan["baselines"] == "yes")]
            problems += [] if len(rows) else [f"{where}: the plan profiles no baselines beside step {steps[-1]} "
                                              f"at {shape}"]
        wanted = str(arguments.get("metrics") or arguments.get("metric") or "").split(",")
        problems += [f"{where}: lab.metrics has no metric {m}" for m in wanted if m and not metrics.known(m)]
        peers = [p for p in str(arguments.get("peers") or arguments.get("peer") or "").split(",") if p]
        planned = {p for row in plan[plan["shape"] == shape].itertuples() for p in row.peers.split()}
        if name == "peers_profile" and not planned:
            problems.append(f"{where}: the plan profiles no peer at {shape}")
        problems += [f"{where}: the plan profiles no peer {p} at {shape}" for p in peers if p not in planned]
    return problems


def step_command(args) -> int:
    """make profile STEP=NN: one program's kernels at one shape, printed."""
    options = machine.Parser(prog="the program arguments", add_help=False)
    for flag in ("--shapes", "--rows", "--cols", "--offset", "--variant", "--reps", "--warmup", "--flush"):
        options.add_argument(flag)
    for flag in ("--csv", "--check-only"):
        options.add_argument(flag, action="store_true")
    known, rest = options.parse_known_args(args.program_args)  # timing options are dropped: ncu runs each once
    try:
        shape = results.Shape.parse(known.shapes or f"{known.rows or 4096}x{known.cols or 4096}+{known.offset or 0}")
    except ValueError as err:
        raise Stop(f"bad shape in the program arguments ({err}): profile one shape at a time", 2) from None
    if not Path(args.binary).is_file():
        raise Stop(f"{args.binary} is missing: build it first (make profile STEP={args.step} does)")
    gpu_name = machine.gpu()[0]
    found = profile_program(Ncu(list(metrics.RAW)), args.binary, ["--shapes", str(shape), *rest], known.variant,
                            baselines=False)
    show(f"Step {args.step} at {shape.label()} on {gpu_name}", found)
    return 0


def run(argv=None) -> int:
    parser = machine.Parser(prog="python3 -m lab.profile", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    step = commands.add_parser("step", help="one program's kernels at one shape (make profile STEP=NN)")
    step.add_argument("step", help="the step's number, e.g. 06 (the title of the table)")
    step.add_argument("binary", help="the program, e.g. build/step06 or build/grade_06")
    step.add_argument("program_args", nargs="...", help="the program's arguments: --shapes, --variant, ...")
    plan = commands.add_parser("plan", help="the step rows of lab/profile_plan.csv -> docs/results/<gpu>-profile.csv")
    plan.add_argument("--steps", help="only these steps; the others' rows are kept (default: all, afresh)")
    peers = commands.add_parser("peers", help="the peers rows of the plan -> docs/results/<gpu>-peers-profile.csv")
    peers.add_argument("--lib", default="build/peers/libtutorial.so", help="the tutorial's library (make peers-lib)")
    for command in (plan, peers):
        command.add_argument("--gpu", help="names the file (default: from the GPU's name, e.g. h200)")
        command.add_argument("--build", type=Path, default=Path("build"), help="where the programs are")
    commands.add_parser("check-env", help="exit 3 unless a GPU and ncu are here")
    args = parser.parse_args(argv)
    if args.command == "step":
        args.step = args.step.zfill(2)
        return step_command(args)
    if args.command == "plan":
        known = [*machine.steps(), machine.STUDY]
        args.steps = [s if s == machine.STUDY else s.zfill(2) for s in re.split(r"[,\s]+", args.steps or "") if s]
        args.steps = args.steps or known
        if bad := [s for s in args.steps if s not in known]:
            parser.error(f"no step '{bad[0]}': the steps are {' '.join(known)}")
    if args.command in ("plan", "peers"):
        return run_plan(args, peers=args.command == "peers")
    machine.gpu()   # check-env
    Ncu([])
    return 0


if __name__ == "__main__":
    raise SystemExit(machine.main(run))
