# Writes a schedule that adds COUNT unit loops above block B: `unit_loops.py COUNT`.
import sys

count = int(sys.argv[1])
print("def apply_trace(sch):")
print('    b = sch.get_block("B")')
for _ in range(count):
    print("    sch.add_unit_loop(b)")
