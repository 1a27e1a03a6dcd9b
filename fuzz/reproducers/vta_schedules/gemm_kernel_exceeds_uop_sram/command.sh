#!/bin/sh
# error: error without file:line:col: call to 'VTAPushGEMMOp' failed: VTAPushGEMMOp: a micro-kernel of 9 micro-ops does not fit the micro-op SRAM of 2 entries
# VTAC: the vtac binary (default: this checkout's build)
cd "$(dirname "$0")" && exec "${VTAC:-../../../../build/bin/vtac}" run case.tvm --schedule trace.py --passes=vta-lower --random-inputs --seed 249510679 --reference case.tvm --stats --vta-config vta_config.json
