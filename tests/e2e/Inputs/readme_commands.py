"""Runs the shell blocks of the README as a newcomer pastes them, so they stay true (issue 29).

Every ```sh block but the first (`make demo` / `make test`: the set-up this test runs under) runs
as one `sh -e` script in a scratch directory that looks like a built clone: samples/, tests/,
runtime/, simulator/, scripts/ and bench/ of the repository, build/bin and build/lib of the build,
`vtac` on PATH. In a block written as a session (`$ ` prompts), the prompted lines and their
continuations are the commands and the other lines the output shown: each shown line of the form
`NAME: all N elements match the reference` must appear in the output. Blocks run in order in the
same directory. Prints one line per block; exits 1 at the first that fails, with its output.

usage: readme_commands.py README VTAC SCRATCH (the repository is README's folder, the build VTAC's
bin/'s parent)"""
import os
import re
import subprocess
import sys


def blocks(readme):
    """The ```sh blocks of the README: (line number, lines)."""
    found, current, start = [], None, 0
    for number, line in enumerate(open(readme).read().split("\n"), 1):
        if current is None and line.strip() == "```sh":
            current, start = [], number + 1
        elif current is not None and line.strip() == "```":
            found.append((start, current))
            current = None
        elif current is not None:
            current.append(line)
    return found


def script_of(lines):
    """(the shell script, the output lines it must print) of a block."""
    if not any(line.startswith("$ ") for line in lines):
        return "\n".join(lines), []
    commands, shown, continued = [], [], False
    for line in lines:
        if line.startswith("$ ") or continued:
            commands.append(line[2:] if line.startswith("$ ") else line)
            continued = line.rstrip().endswith("\\")
        else:
            shown.append(line)
    return "\n".join(commands), [s for s in shown if re.search(r": all \d+ elements match the reference$", s)]


def main():
    readme, vtac, scratch = sys.argv[1:4]
    repo = os.path.dirname(os.path.abspath(readme))
    build = os.path.dirname(os.path.dirname(os.path.abspath(vtac)))
    os.makedirs(os.path.join(scratch, "build"), exist_ok=True)
    for name in ("samples", "tests", "runtime", "simulator", "scripts", "bench"):
        link = os.path.join(scratch, name)
        if not os.path.lexists(link):
            os.symlink(os.path.join(repo, name), link)
    for name in ("bin", "lib"):
        link = os.path.join(scratch, "build", name)
        if not os.path.lexists(link):
            os.symlink(os.path.join(build, name), link)
    env = dict(os.environ, PATH=os.path.join(build, "bin") + os.pathsep + os.environ["PATH"])
    env.pop("MAKEFLAGS", None)
    for start, lines in blocks(readme)[1:]:
        script, shown = script_of(lines)
        run = subprocess.run(["sh", "-e", "-c", script], cwd=scratch, env=env, capture_output=True, text=True)
        output = run.stdout + run.stderr
        missing = [s for s in shown if s.strip() not in output]
        if run.returncode != 0 or missing:
            print("README.md:%d: the block fails (exit %d%s):\n%s\n--- its output:\n%s" % (
                start, run.returncode, ", missing: %s" % missing if missing else "", script, output))
            sys.exit(1)
        print("README.md:%d: ok (%d command lines)" % (start, script.count("\n") + 1))


if __name__ == "__main__":
    main()
