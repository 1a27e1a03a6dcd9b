#!/bin/sh
# error: error without file:line:col: call to 'VTAPushALUOp' failed: VTAPushALUOp: a micro-kernel of 2 micro-ops does not fit the micro-op SRAM of 1 entries
# VTAC: the vtac binary (default: this checkout's build)
cd "$(dirname "$0")" && exec "${VTAC:-../../../../build/bin/vtac}" run case.tvm --schedule trace.py --passes=vta-lower --random-inputs --seed 1958091574 --reference case.tvm --stats --vta-config vta_config.json
