# Prints the elements of an int32 .npy file (vtac run --output) on one line, so that a lit test
# can check values the untransformed program does not have, such as a buffer's padding.
import struct
import sys

data = open(sys.argv[1], "rb").read()
header_length = struct.unpack("<H", data[8:10])[0]
payload = data[10 + header_length:]
print(" ".join(str(v) for v in struct.unpack("<%di" % (len(payload) // 4), payload)))
