#!/usr/bin/env python3
"""Writes a large TVMScript module for the frontend benchmark: COPIES renamed
copies of seed 001's fully lowered conv2d (samples/conv2d_vta_lowered.tvm) as
prim_funcs conv2d_0, conv2d_1, ... of one @I.ir_module class.

usage: make_large_module.py SAMPLE OUTPUT [COPIES]
"""
import sys


def main():
    sample, output = sys.argv[1], sys.argv[2]
    copies = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    lines = open(sample).read().splitlines()
    # The function: from its decorator to the end of the class body.
    start = next(i for i, line in enumerate(lines) if line.strip() == "@T.prim_func")
    function = lines[start:]
    with open(output, "w") as out:
        out.write("# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n")
        out.write("@I.ir_module\nclass Module:\n")
        for copy in range(copies):
            for line in function:
                out.write(line.replace("def main(", f"def conv2d_{copy}(", 1) + "\n")
            out.write("\n")


if __name__ == "__main__":
    main()
