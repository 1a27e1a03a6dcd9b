# Writes a schedule of N sample_compute_location steps on "PadInput" without a decision.
import sys

print("def apply_trace(sch):")
for _ in range(int(sys.argv[1])):
    print('    sch.sample_compute_location("PadInput")')
