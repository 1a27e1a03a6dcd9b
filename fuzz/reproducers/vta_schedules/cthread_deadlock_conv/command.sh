#!/bin/sh
# error: error without file:line:col: call to 'tir.vta.coproc_sync' failed: VTASynchronize: the device failed (status 3: timeout or error) running 60 instructions (VTA deadlock; instruction 7 waits for a compute->load token that is never pushed: LOAD (opcode 0) pop_prev=false pop_next=true push_prev
# VTAC: the vtac binary (default: this checkout's build)
cd "$(dirname "$0")" && exec "${VTAC:-../../../../build/bin/vtac}" run case.tvm --schedule trace.py --passes=vta-lower --random-inputs --seed 211107305 --reference case.tvm --stats --vta-config vta_config.json
