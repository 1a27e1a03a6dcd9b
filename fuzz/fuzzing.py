"""What the differential fuzzers (engines.py, autoschedule_conv2d.py, vta_schedules.py) share: the
start of their command line, running a command with a timeout that kills its whole process group,
recognising a crash in its output, and the greedy minimiser of a failing case; for the two VTA
fuzzers also the draw of a vta_config.json, the first steps of classifying a `vtac run
--reference` (timeout, crash, mismatch, an error without location), a runner that waits for a
binary being rebuilt, and the files of a reproducer; for the Relax fuzzers (fuse_ops.py,
vta_graph_pack.py) their case loop."""

import argparse
import json
import os
import re
import shlex
import signal
import subprocess
import time
import types

# A sanitizer report, an LLVM fatal error, a failed assertion or a crash's stack dump.
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
                       r"LLVM ERROR|Assertion .* failed|PLEASE submit a bug report|Stack dump:")


def run(argv, cwd, timeout):
    """(returncode, or None on timeout; stdout; stderr) of argv run in cwd."""
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the process group of the command started here
        out, err = proc.communicate()
        return None, out, err


def minimise(case, smaller_cases, fails_alike, budget):
    """Greedy: take the first of smaller_cases(best) for which fails_alike(candidate) returns a
    result (it fails the same way), repeat; at most `budget` tries. (best, its result or None, tries)."""
    best, best_result, tried, progress = case, None, 0, True
    while progress and tried < budget:
        progress = False
        for candidate in smaller_cases(best):
            if tried >= budget:
                break
            tried += 1
            result = fails_alike(candidate)
            if result is not None:
                best, best_result, progress = candidate, result, True
                break
    return best, best_result, tried


def case_parser(doc, root):
    """The command line both fuzzers start with: their docstring as help, which cases to draw
    (--seed, --cases, --first) and the vtac binary (default: ROOT's build)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc)
    parser.add_argument("--seed", type=int, default=0, help="seed of the cases (default 0)")
    parser.add_argument("--cases", type=int, default=20, help="number of cases (default 20)")
    parser.add_argument("--first", type=int, default=0, help="index of the first case (default 0)")
    parser.add_argument("--vtac", default=os.path.join(root, "build", "bin", "vtac"), help="the vtac binary")
    return parser


# ---------------------------------------------------------------------------------------------
# The VTA fuzzers (autoschedule_conv2d.py, vta_schedules.py)

DEFAULT_SIZES = {"LOG_INP_BUFF_SIZE": 15, "LOG_WGT_BUFF_SIZE": 18, "LOG_ACC_BUFF_SIZE": 17,
                 "LOG_UOP_BUFF_SIZE": 15}
LOCATED_ERROR = re.compile(r"^(\S+):(\d+):(\d+): error: (.*)$", re.M)
ANY_ERROR = re.compile(r"^(?:.*: )?error: (.*)$", re.M)
COMPARE = re.compile(r"^(\w+): (all \d+ elements match the reference|(\d+) of (\d+) elements differ.*)$", re.M)


def elem_log_bytes(config):
    """log2 of the bytes of one element of each SRAM (as vta::Config::derive)."""
    lb, lbt = config["LOG_BLOCK"], config["LOG_BATCH"]
    return {"LOG_INP_BUFF_SIZE": lbt + lb, "LOG_WGT_BUFF_SIZE": 2 * lb,
            "LOG_ACC_BUFF_SIZE": lbt + lb + 2, "LOG_UOP_BUFF_SIZE": 2}


def draw_config(rng, log_batch, log_block):
    """A vta_config.json: LOG_BATCH from log_batch, LOG_BLOCK from log_block, and the input,
    weight, accumulator and micro-op SRAMs: the defaults, or each a few sizes smaller, or down to
    a single element."""
    r = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731  inclusive
    config = {"LOG_BATCH": int(rng.choice(log_batch)), "LOG_BLOCK": int(rng.choice(log_block))}
    pressure = rng.random()
    lows = elem_log_bytes(config)
    for key, default in DEFAULT_SIZES.items():
        if pressure < 0.4 or rng.random() < 0.3:
            config[key] = default  # TVM's default
        elif pressure < 0.8:
            config[key] = max(lows[key], default - r(1, 5))  # a few sizes smaller: smaller tiles
        else:
            config[key] = r(lows[key], default)  # down to one element: often nothing fits
    return config


def check_run(rc, out, err):
    """The first steps of classifying a `vtac run ... --reference`: (outcome, detail) for a timeout,
    a crash (signal, sanitizer report), a mismatch, an error without `file:line:col:` or without
    its source line and caret, or an exit status without a diagnostic; ("located", message) for a
    located error; (None, "") when vtac reported no error."""
    if rc is None:
        return "timeout", "no result within the timeout"
    sanitizer = SANITIZER.search(err) or SANITIZER.search(out)
    if rc < 0:
        return "crash", "killed by signal %d%s" % (-rc, (": " + sanitizer.group(0)) if sanitizer else "")
    if sanitizer:
        return "crash", sanitizer.group(0)
    # A mismatch exits non-zero with "res: K of N elements differ" and no error line.
    differ = [(name, text) for name, text, _, _ in COMPARE.findall(out) if "differ" in text]
    if differ:
        return "mismatch", "; ".join("%s: %s" % d for d in differ)
    errors = ANY_ERROR.findall(err)
    if errors or rc != 0:
        if not errors:
            tail = (err.strip().splitlines() or ["(no output)"])[-1]
            return "error", "exit status %d without an error message: %s" % (rc, tail)
        located = LOCATED_ERROR.search(err)
        if not located:
            return "error", "error without file:line:col: " + errors[0]
        lines = err[located.end():].lstrip("\n").splitlines()
        if len(lines) < 2 or not re.match(r"^\s*\^", lines[1]):
            return "error", "error without a source line and caret: " + located.group(4)
        return "located", located.group(4)
    return None, ""


def compared(out, name):
    """Whether vtac's output says every element of parameter `name` matches the reference."""
    return any(n == name and "differ" not in text for n, text, _, _ in COMPARE.findall(out))


def signature(outcome, detail):
    """What must stay the same while minimising: the outcome and the message without numbers."""
    if outcome in ("mismatch", "timeout"):
        return outcome
    return outcome + ":" + re.sub(r"\d+", "N", re.sub(r"'\w+'", "'X'", detail))


class VtacRunner:
    """Runs `command(vtac, case)` in a directory after `write(directory, case)`; waits for a
    binary being rebuilt (missing, not executable, shared libraries missing) rather than report
    it, and notes when it changed during the run. `classify(case, rc, out, err)` -> (outcome, detail)."""

    def __init__(self, vtac, timeout, command, write, classify, outputs=()):
        self.vtac, self.timeout = os.path.abspath(vtac), timeout
        self.command, self.write, self.classify, self.outputs = command, write, classify, outputs
        self.runs = 0
        self.stamp = os.stat(self.vtac).st_mtime if os.path.exists(self.vtac) else None

    def run(self, case, directory):
        self.write(directory, case)
        for name in self.outputs:
            if os.path.exists(os.path.join(directory, name)):
                os.remove(os.path.join(directory, name))
        for _ in range(10):
            try:
                rc, out, err = run(self.command(self.vtac, case), directory, self.timeout)
            except OSError as e:  # not there, or being written (EACCES, ETXTBSY)
                rc, out, err = 127, "", "cannot start %s: %s\n" % (self.vtac, e)
            self.runs += 1
            rebuilding = rc is not None and rc != 0 and (
                rc in (126, 127) or not os.access(self.vtac, os.X_OK)
                or "error while loading shared libraries" in err)
            if not rebuilding:
                break
            time.sleep(30)
        stamp = os.stat(self.vtac).st_mtime if os.path.exists(self.vtac) else None
        if stamp != self.stamp:
            if self.stamp is not None:
                print("note: %s changed (rebuilt) during the run" % self.vtac, flush=True)
            self.stamp = stamp
        outcome, detail = self.classify(case, rc, out, err)
        return outcome, detail, rc, out, err


def save_reproducer(directory, cmd, rc, out, err, outcome, detail, record):
    """Adds command.sh (cd to its directory, then `cmd`), output.txt and case.json (`record`) to a
    reproducer directory that holds the case's input files already."""
    with open(os.path.join(directory, "command.sh"), "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\n# %s: %s\ncd \"$(dirname \"$0\")\" && %s\n" % (outcome, detail, shlex.join(cmd)))
    os.chmod(os.path.join(directory, "command.sh"), 0o755)
    with open(os.path.join(directory, "output.txt"), "w", encoding="utf-8") as f:
        f.write("$ %s\n# exit status: %s\n# --- stdout\n%s# --- stderr\n%s" % (
            shlex.join(cmd), "timeout" if rc is None else rc, out, err))
    with open(os.path.join(directory, "case.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")


def vta_parser(doc, root, max_macs):
    """case_parser plus the options both VTA fuzzers take."""
    parser = case_parser(doc, root)
    parser.add_argument("--out", help="write failing cases (and their minimised forms) under this directory")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds (wall) per vtac run (default 300)")
    parser.add_argument("--time-limit", type=float, default=0.0,
                        help="start no new case after this many seconds of wall time (0: none)")
    parser.add_argument("--max-macs", type=int, default=max_macs,
                        help="largest workload drawn, in multiply-adds (default %g)" % max_macs)
    parser.add_argument("--log-batch", type=int, action="append", choices=(0, 1),
                        help="LOG_BATCH values to draw (repeatable; default 0 and 1)")
    parser.add_argument("--log-block", type=int, action="append", choices=(4, 5),
                        help="LOG_BLOCK values to draw (repeatable; default 4 and 5)")
    parser.add_argument("--no-minimise", action="store_true", help="do not minimise failing cases")
    parser.add_argument("--minimise-runs", type=int, default=40, help="vtac runs per minimisation (default 40)")
    parser.add_argument("--minimise-repeats", type=int, default=1,
                        help="minimise only the first N failing cases of each distinct failure (default 1)")
    parser.add_argument("--replay", metavar="CASE.json", action="append",
                        help="run this case (a reproducer's case.json) instead of drawing cases "
                             "(repeatable); its files are written anew")
    parser.add_argument("--dry-run", action="store_true", help="print the drawn cases, run nothing")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    return parser


def write_files(directory, files):
    """Writes each (name, text) of `files` into `directory` (made if missing)."""
    os.makedirs(directory, exist_ok=True)
    for name, text in files:
        with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
            f.write(text)


def case_files(module, config):
    """A case's case.tvm and vta_config.json, for write_files."""
    return [("case.tvm", module), ("vta_config.json", json.dumps(config, sort_keys=True) + "\n")]


def autoschedule_command(vtac, case, extra=()):
    """`vtac run case.tvm --auto-schedule` on the case's seeded inputs against the unscheduled
    program, as both auto-schedule fuzzers run a case."""
    return [vtac, "run", "case.tvm", "--auto-schedule", "--passes=vta-lower", "--random-inputs",
            "--seed", str(case["input_seed"]), "--reference", "case.tvm", "--stats",
            "--vta-config", "vta_config.json"] + list(extra)


def check_scheduled(out, err, rule, counter, what, fits):
    """The checks of an auto-schedule fuzzer's run that exited 0 and stayed off the CPU: 'res'
    compared, the remark of `rule`, the simulator's `counter` ("gemm_counter") not 0 (`what` it
    counts), and `fits` (the smallest tile fits by the script's count). (outcome, detail)."""
    if not compared(out, "res"):
        return "error", "exit status 0 but no comparison of 'res' with the reference"
    if "on VTA by %s" % rule not in err:
        return "error", "no remark of the %s rule" % rule
    m = re.search(r"^\s+%s\s+(\d+)$" % counter, out, re.M)
    if not m or int(m.group(1)) == 0:
        return "error", "scheduled on VTA, but the simulator counted no %s" % what
    if not fits:
        return "error", "scheduled although the smallest tile exceeds an SRAM by this script's count"
    return "match", ""


def record_reproducer(describe):
    """A fuzzer's save_reproducer(directory, runner, case, rc, out, err, outcome, detail): the
    case's files are in `directory` already; adds command.sh (the runner's command), output.txt
    and case.json (the case with its outcome and description)."""
    def save(directory, runner, case, rc, out, err, outcome, detail):
        save_reproducer(directory, runner.command(runner.vtac, case), rc, out, err, outcome, detail,
                        dict(case, outcome=outcome, detail=detail, description=describe(case)))
    return save


def smaller_configs(case, variant):
    """The minimiser's first steps for a case with a spec and a config: one image batch tile, then
    each SRAM back to its default size (`variant(**changes)` makes a candidate)."""
    s, c = case["spec"], case["config"]
    out = [variant(batch=s["batch_tile"])] if s["batch"] > s["batch_tile"] else []
    return out + [variant(**{key: default}) for key, default in DEFAULT_SIZES.items() if c[key] != default]


CASE_FUNCTIONS = ("draw_case", "load_case", "describe", "write_case", "smaller_cases", "save_reproducer", "macs")


def vta_campaign(argv, fuzzer, name, max_macs, make_runner, note=None, summary=None, add_arguments=None):
    """The main() of a VTA fuzzer module `fuzzer` (its docstring, ROOT and CASE_FUNCTIONS): parses
    vta_parser's options (and the fuzzer's own: add_arguments(parser)) (both batch and block sizes drawn unless given), prints the draws with
    --dry-run (returns None) or runs campaign() with the runner make_runner(args) and the optional
    note/summary hooks (returns what campaign returns)."""
    parser = vta_parser(fuzzer.__doc__, fuzzer.ROOT, max_macs)
    if add_arguments:
        add_arguments(parser)
    args = parser.parse_args(argv)
    args.log_batch = sorted(set(args.log_batch or [0, 1]))
    args.log_block = sorted(set(args.log_block or [4, 5]))
    if args.dry_run:
        for i in range(args.first, args.first + args.cases):
            case = fuzzer.draw_case(args.seed, i, args)
            print("case %d: %s (%.2fM MACs)" % (i, fuzzer.describe(case), fuzzer.macs(case["spec"]) / 1e6))
        return None
    fz = types.SimpleNamespace(runner=make_runner(args), note=note or (lambda *_: ""), summary=summary or (lambda: ""),
                               **{f: getattr(fuzzer, f) for f in CASE_FUNCTIONS})
    return campaign(args, fz, name)


def campaign(args, fz, name):
    """The case loop of a VTA fuzzer. `fz` provides draw_case(seed, i, args), load_case(path),
    describe(case), runner (a VtacRunner), write_case(dir, case), save_reproducer(dir, runner, case, rc, out,
    err, outcome, detail), smaller_cases(case), note(case, outcome, rc, out, err, casedir) (a
    string for the verbose line) and summary() (extra text for the outcomes line). Prints one line
    per failing case (per case with -v), the distinct failures and the last line
    `<name>: N cases, ...`; returns (counts, bugs)."""
    import shutil
    import tempfile
    import resource
    runner = fz.runner
    start = time.time()
    counts, bugs, seen = {}, [], {}
    workdir = tempfile.mkdtemp(prefix=name + "-")

    def fails_alike_in(mindir, sig):
        def fails_alike(candidate):
            outcome, detail, rc, out, err = runner.run(candidate, mindir)
            if outcome in ("match", "expected") or signature(outcome, detail) != sig:
                return None
            return outcome, detail, rc, out, err
        return fails_alike

    done = 0
    try:
        for i in range(args.first, args.first + (len(args.replay) if args.replay else args.cases)):
            if args.time_limit and time.time() - start > args.time_limit:
                break
            case = fz.load_case(args.replay[i - args.first]) if args.replay else fz.draw_case(args.seed, i, args)
            case_start = time.time()
            casedir = os.path.join(workdir, "case")
            shutil.rmtree(casedir, ignore_errors=True)
            outcome, detail, rc, out, err = runner.run(case, casedir)
            done += 1
            counts[outcome] = counts.get(outcome, 0) + 1
            note = fz.note(case, outcome, rc, out, err, casedir)
            if args.verbose or outcome not in ("match", "expected"):
                print("case %d: %-8s %s (%.1f s) %s%s" % (i, outcome, fz.describe(case), time.time() - case_start,
                                                          note, detail), flush=True)
            if outcome in ("match", "expected"):
                continue
            tag = ("replay%d-%s" % (i, outcome)) if args.replay else "seed%d-case%d-%s" % (args.seed, i, outcome)
            record = {"case": i, "outcome": outcome, "detail": detail, "signature": signature(outcome, detail),
                      "description": fz.describe(case), "dir": None, "min": None}
            if args.out:
                record["dir"] = os.path.join(os.path.abspath(args.out), tag)
                shutil.rmtree(record["dir"], ignore_errors=True)
                shutil.copytree(casedir, record["dir"])
                fz.save_reproducer(record["dir"], runner, case, rc, out, err, outcome, detail)
            seen[record["signature"]] = seen.get(record["signature"], 0) + 1
            if not args.no_minimise and seen[record["signature"]] <= args.minimise_repeats:
                mindir = os.path.join(workdir, "min")
                shutil.rmtree(mindir, ignore_errors=True)
                small, result, tried = minimise(case, fz.smaller_cases, fails_alike_in(mindir, record["signature"]),
                                                args.minimise_runs)
                if result:
                    record["min_description"] = fz.describe(small)
                    print("  minimised in %d runs: %s: %s" % (tried, fz.describe(small), result[1]), flush=True)
                    if args.out:
                        shutil.rmtree(mindir, ignore_errors=True)  # the last run may have been another candidate
                        outcome2, detail2, rc2, out2, err2 = runner.run(small, mindir)
                        record["min"] = os.path.join(record["dir"], "min")
                        shutil.rmtree(record["min"], ignore_errors=True)
                        shutil.copytree(mindir, record["min"])
                        fz.save_reproducer(record["min"], runner, small, rc2, out2, err2, outcome2, detail2)
            if record["dir"]:
                print("  reproducer: %s%s" % (record["dir"], "  (minimised: min/)" if record["min"] else ""),
                      flush=True)
            bugs.append(record)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if bugs:
        kinds = {}
        for b in bugs:
            kinds.setdefault(b["signature"], []).append(b["case"])
        print("distinct failures:")
        for sig, cases in kinds.items():
            print("  %s: cases %s" % (sig, ", ".join(str(c) for c in cases)))
    print("outcomes: %s; %d vtac runs, %.1f s CPU (vtac), %.1f s wall%s" % (
        ", ".join("%s %d" % kv for kv in sorted(counts.items())), runner.runs, usage.ru_utime + usage.ru_stime,
        time.time() - start, fz.summary()))
    return done, counts, bugs


def relax_campaign(argv, doc, root, name, draw_case, run_case, totals):
    """The main() of a fuzzer that compares runs of drawn Relax modules (fuse_ops.py,
    vta_graph_pack.py): case i is draw_case(numpy's default_rng([seed, i])), a module's text, run by
    run_case(vtac, text, i, directory, timeout) in a temporary directory, which returns (outcome:
    "match" or "bugs", detail, counts...) with one count per name of `totals` (summed over the
    cases); a bug's directory is kept under --out. Prints each bug (every case with -v) and the
    last line `<name>: N cases, M match, <count> <total name>, ..., B bugs`; returns the exit
    status, 1 when there are bugs."""
    import shutil
    import tempfile

    import numpy as np

    parser = case_parser(doc, root)
    parser.add_argument("--out", help="keep failing cases under this directory")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds (wall) per vtac command (default 120)")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    args = parser.parse_args(argv)
    counts = {"match": 0, "bugs": 0}
    sums = [0] * len(totals)
    for case in range(args.first, args.first + args.cases):
        text = draw_case(np.random.default_rng([args.seed, case]))
        with tempfile.TemporaryDirectory() as directory:
            outcome, detail, *found = run_case(args.vtac, text, case, directory, args.timeout)
            if outcome == "bugs" and args.out:
                shutil.copytree(directory, os.path.join(args.out, "case%d" % case), dirs_exist_ok=True)
        counts[outcome] += 1
        sums = [a + b for a, b in zip(sums, found)]
        if args.verbose or outcome == "bugs":
            print("case %d: %s%s (%s)" % (case, outcome, ": " + detail if detail else "",
                                          ", ".join("%d %s" % (n, t) for n, t in zip(found, totals))))
            if outcome == "bugs":
                print(text)
    print("%s: %d cases, %d match, %s, %d bugs" % (name, args.cases, counts["match"],
                                                   ", ".join("%d %s" % (n, t) for n, t in zip(sums, totals)),
                                                   counts["bugs"]))
    return 1 if counts["bugs"] else 0
