#!/bin/sh
# error: error without file:line:col: call to 'tir.vta.coproc_dep_push' failed: VTADepPush: no dependency queue from 3 to 1 (queues: 1 load, 2 compute, 3 store; only neighbours)
# VTAC: the vtac binary (default: this checkout's build)
cd "$(dirname "$0")" && exec "${VTAC:-../../../../build/bin/vtac}" run case.tvm --schedule trace.py --passes=vta-lower --random-inputs --seed 119111758 --reference case.tvm --stats --vta-config vta_config.json
