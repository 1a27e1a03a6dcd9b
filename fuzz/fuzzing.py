"""What the differential fuzzers (engines.py, autoschedule_conv2d.py) share: the start of their
command line, running a command with a timeout that kills its whole process group, recognising a
crash in its output, and the greedy minimiser of a failing case."""

import argparse
import os
import re
import signal
import subprocess

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
