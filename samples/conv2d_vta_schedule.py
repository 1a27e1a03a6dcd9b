# Seed 001's conv2d schedule (the tutorial's TE schedule) as a TensorIR trace for
# samples/conv2d_tensorir.tvm: output blocked by 7 rows and 14 columns with 8-tile oc blocks,
# the oc blocks split over 2 virtual threads (cthread), the input and weight tiles loaded per ic
# iteration into the VTA SRAMs by DMA (padding from the copy's condition), the convolution
# tensorized on the GEMM core (reset, then update) and shift/clip on the ALU, the result stored
# by DMA. Run: vtac run samples/conv2d_tensorir.tvm --schedule samples/conv2d_vta_schedule.py
# --passes=vta-lower --random-inputs --stats
def apply_trace(sch):
    res = sch.get_block("res")
    b, oc, y, x, b_t, oc_t = sch.get_loops(res)
    b_o, b_i = sch.split(b, factors=[None, 1])
    oc_o, oc_i = sch.split(oc, factors=[None, 8])
    y_o, y_i = sch.split(y, factors=[None, 7])
    x_o, x_i = sch.split(x, factors=[None, 14])
    sch.reorder(b_o, oc_o, y_o, x_o, b_i, oc_i, y_i, x_i, b_t, oc_t)
    # consumers first: compute_at needs the consumers of a block already in place
    sch.compute_at(sch.get_block("res_min"), x_o)
    sch.compute_at(sch.get_block("res_max"), x_o)
    sch.compute_at(sch.get_block("res_shr"), x_o)
    conv = sch.get_block("res_conv")
    # unit loops kept: the GEMM intrinsic matches the batch-of-1 tile
    sch.compute_at(conv, x_o, preserve_unit_loops=True)
    l0, l1, l2, l3, bo, co, i, j, bi, ci, ic, dy, dx, ic_t = sch.get_loops(conv)
    ic_o, ic_i = sch.split(ic, factors=[None, 1])
    sch.reorder(ic_o, bo, co, i, ic_i, dy, dx, j, bi, ci, ic_t)
    v, tx = sch.split(oc_o, factors=[None, 2])
    sch.reorder(tx, b_o)
    sch.bind(tx, "cthread")
    sch.set_scope(sch.get_block("data_buf"), 0, "local.inp_buffer")
    sch.set_scope(sch.get_block("kernel_buf"), 0, "local.wgt_buffer")
    sch.set_scope(conv, 0, "local.acc_buffer")
    sch.set_scope(sch.get_block("res_shr"), 0, "local.acc_buffer")
    sch.set_scope(sch.get_block("res_max"), 0, "local.acc_buffer")
    sch.set_scope(sch.get_block("res_min"), 0, "local.acc_buffer")
    sch.compute_at(sch.get_block("data_buf"), ic_o)
    sch.compute_at(sch.get_block("kernel_buf"), ic_o)
    # decompose_reduction last before tensorize: the update block is no longer a reduction block
    init = sch.decompose_reduction(conv, ic_o)
    # DMA and ALU pragmas on the first loop that is not a unit loop (a unit loop with an
    # annotation survives lowering and would change the copy's 2D pattern)
    l0, l1, l2, l3, l4, l5, d0, d1, d2 = sch.get_loops(sch.get_block("data_buf"))
    sch.annotate(d0, "pragma_dma_copy", 1)
    l0, l1, l2, l3, l4, l5, k0, k1, k2, k3, k4 = sch.get_loops(sch.get_block("kernel_buf"))
    sch.annotate(k0, "pragma_dma_copy", 1)
    sch.annotate(oc_t, "pragma_dma_copy", 1)
    l0, l1, l2, l3, l4, s0, s1, s2, s3 = sch.get_loops(sch.get_block("res_shr"))
    sch.annotate(s0, "pragma_alu", 1)
    l0, l1, l2, l3, l4, m0, m1, m2, m3 = sch.get_loops(sch.get_block("res_max"))
    sch.annotate(m0, "pragma_alu", 1)
    l0, l1, l2, l3, l4, n0, n1, n2, n3 = sch.get_loops(sch.get_block("res_min"))
    sch.annotate(n0, "pragma_alu", 1)
    # the built-in VTA GEMM intrinsics (vtac intrinsics prints them)
    l0, l1, l2, l3, l4, i0, i1, i2, i3, i4, i5 = sch.get_loops(init)
    sch.tensorize(i4, "vta_gemm_reset")
    sch.tensorize(bi, "vta_gemm")
