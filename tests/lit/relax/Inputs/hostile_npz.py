# Writes a hostile .npz archive: `hostile_npz.py KIND PATH`. The arrays are float32 vectors
# written byte by byte as .npy 1.0 (no numpy needed). KIND is
#   bomb       x (3 floats) and w: 64 MiB of zeros deflated to about 64 KiB
#   forged     x, whose local header and directory entry both claim 1 GiB
#   overlap    x and y, stored, where x's data runs on over y's header and data (members
#              sharing bytes are how zip bombs multiply)
#   duplicate  x twice ("x.npy" and "x.npy")
#   unused     x and a misspelt "weight0" that names no parameter
import struct
import sys
import zipfile
import zlib


def npy(count, fill=b"\0\0\0\0"):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % count
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + fill * count


X = npy(3, struct.pack("<f", 1.5))


def write(path, members, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in members:
            archive.writestr(name, data)


def patch_sizes(path, claimed):
    """Sets the uncompressed size of every local and central header to `claimed`."""
    data = bytearray(open(path, "rb").read())
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(signature)
        while at >= 0:
            struct.pack_into("<I", data, at + offset, claimed)
            at = data.find(signature, at + 4)
    open(path, "wb").write(data)


def local_header(name, data):
    return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, zlib.crc32(data), len(data),
                       len(data), len(name), 0) + name


def central_header(name, data, offset):
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, zlib.crc32(data),
                       len(data), len(data), len(name), 0, 0, 0, 0, 0, offset) + name


def overlap(path):
    y = npy(250)
    y_member = local_header(b"y.npy", y) + y
    x_data = X + y_member  # what x's entry claims: its own array, then all of y
    body = local_header(b"x.npy", x_data) + X + y_member
    y_offset = len(body) - len(y_member)
    central = central_header(b"x.npy", x_data, 0) + central_header(b"y.npy", y, y_offset)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 2, 2, len(central), len(body), 0)
    open(path, "wb").write(body + central + end)


kind, path = sys.argv[1], sys.argv[2]
if kind == "bomb":
    write(path, [("x.npy", X), ("w.npy", npy(16 << 20))], zipfile.ZIP_DEFLATED)
elif kind == "forged":
    write(path, [("x.npy", X)])
    patch_sizes(path, 1 << 30)
elif kind == "overlap":
    overlap(path)
elif kind == "duplicate":
    import warnings
    warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it writes
    write(path, [("x.npy", X), ("x.npy", X)])
elif kind == "unused":
    write(path, [("x.npy", X), ("weight0.npy", X)])
else:
    sys.exit("unknown kind " + kind)
