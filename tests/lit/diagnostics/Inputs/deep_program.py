# Writes a prim_func whose body is one long chain of a recursive construct, to
# stdout: `deep_program.py KIND COUNT`. KIND is let, assert, allocate, elif,
# attribute (a.b.c...), call (f()()...), subscript (x[0][0]...) or parallel (a parallel loop
# whose body is a chain of COUNT - 1 lets, each using the one before).
import sys

kind, count = sys.argv[1], int(sys.argv[2])
out = ['@T.prim_func', 'def main(A: T.Buffer((4,), "int32")):']
if kind == "let":
    out += [f"    x{i}: T.int32 = A[{i % 4}] + {i}" for i in range(count)]
    out.append(f"    A[0] = x{count - 1}")
elif kind == "parallel":
    out.append("    for t in T.parallel(4):")
    out.append("        x0: T.int32 = A[t]")
    out += [f"        x{i}: T.int32 = x{i - 1} ^ {i}" for i in range(1, count - 1)]
    out.append(f"        A[t] = x{count - 2}")
elif kind == "assert":
    out += [f"    assert A[0] != {i + 100}" for i in range(count)]
    out.append("    A[0] = 1")
elif kind == "allocate":
    out += [f'    p{i} = T.allocate([4], "int32", "global")' for i in range(count)]
    out.append("    A[0] = 1")
elif kind == "elif":
    out += ["    if A[0] == 100:", "        A[1] = 0"]
    for i in range(1, count):
        out += [f"    elif A[0] == {i + 100}:", f"        A[1] = {i}"]
    out += ["    else:", "        A[1] = 1"]
elif kind == "attribute":
    out.append("    A[0] = A" + ".data" * count)
elif kind == "call":
    out.append("    A[0] = T.int32" + "(1)" * count)
elif kind == "subscript":
    out.append("    A[0] = A" + "[0]" * count)
else:
    sys.exit("unknown kind " + kind)
print("\n".join(out))
