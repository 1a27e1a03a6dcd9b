"""Writes two .npy files whose headers quote hostile text in their descr:
argv[1] a NUL and a terminal escape sequence, argv[2] a descr of 100000 bytes."""
import struct
import sys


def write(path, descr):
    header = b"{'descr': '" + descr + b"', 'fortran_order': False, 'shape': (4,), }"
    header += b" " * (-(12 + len(header) + 1) % 64) + b"\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x02\x00" + struct.pack("<I", len(header)) + header + bytes(16))


write(sys.argv[1], b"<i4\x00\x1b[31mRED")
write(sys.argv[2], b"x" * 100000)
