# Seed 002's vector add schedule as a TensorIR trace for samples/vector_add_te_prim_func.tvm:
# the three staging buffers in the VTA accumulator SRAM, loaded and stored by DMA, the addition
# on the ALU. Run: vtac run samples/vector_add_te_prim_func.tvm --schedule
# samples/vector_add_vta_schedule.py --passes=vta-lower --random-inputs --stats
def apply_trace(sch):
    sch.set_scope(sch.get_block("A_buf", func_name="add"), 0, "local.acc_buffer")
    sch.set_scope(sch.get_block("B_buf", func_name="add"), 0, "local.acc_buffer")
    sch.set_scope(sch.get_block("C_buf", func_name="add"), 0, "local.acc_buffer")
    a0, a1, a2, a3 = sch.get_loops(sch.get_block("A_buf", func_name="add"))
    sch.annotate(a0, "pragma_dma_copy", 1)
    b0, b1, b2, b3 = sch.get_loops(sch.get_block("B_buf", func_name="add"))
    sch.annotate(b0, "pragma_dma_copy", 1)
    c0, c1, c2, c3 = sch.get_loops(sch.get_block("C_buf", func_name="add"))
    sch.annotate(c0, "pragma_alu", 1)
    o0, o1, o2, o3 = sch.get_loops(sch.get_block("C", func_name="add"))
    sch.annotate(o0, "pragma_dma_copy", 1)
