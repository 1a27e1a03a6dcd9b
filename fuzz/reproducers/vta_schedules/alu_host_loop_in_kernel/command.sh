#!/bin/sh
# error: error without file:line:col: call to 'VTAPushALUOp' failed: VTAPushALUOp: VTAUopLoopBegin after a micro-op: loops must enclose all micro-ops
# VTAC: the vtac binary (default: this checkout's build)
cd "$(dirname "$0")" && exec "${VTAC:-../../../../build/bin/vtac}" run case.tvm --schedule trace.py --passes=vta-lower --random-inputs --seed 263269552 --reference case.tvm --stats --vta-config vta_config.json
