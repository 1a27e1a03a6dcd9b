#!/bin/sh
# error: [fold-uop-loop] the micro-kernel depends on 2 variables (a located refusal: TVM's runtime keys a micro-kernel by at most one int32)
# VTAC: the vtac binary (default: this checkout's build)
cd "$(dirname "$0")" && exec "${VTAC:-../../../../build/bin/vtac}" run case.tvm --schedule trace.py --passes=vta-lower --random-inputs --seed 1088831678 --reference case.tvm --stats --vta-config vta_config.json
