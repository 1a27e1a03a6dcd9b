/*
 * The VTA runtime C API (libvta_runtime).
 *
 * Same names, signatures and constants as TVM's vta/runtime/runtime.h, so code generated for
 * TVM's VTA runtime links against this library unchanged. The runtime turns these calls into
 * 128-bit VTA instructions and micro-ops (in the binary encoding of the active configuration),
 * caches the micro-kernels recorded by `finit` closures, and hands the program to a device
 * through the driver API (vta/driver.h) only.
 *
 * This header does not need dlpack or TVM's headers. vtac additions, marked below, report
 * errors as values and select the hardware configuration at run time.
 */
#ifndef VTA_RUNTIME_RUNTIME_H_
#define VTA_RUNTIME_RUNTIME_H_

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>
#include <vta/driver.h>

#ifndef TVM_DLL
#define TVM_DLL __attribute__((visibility("default")))
#endif

/* kind_mask values of VTABufferCopy. */
#define VTA_MEMCPY_H2D 1
#define VTA_MEMCPY_D2H 2
#define VTA_MEMCPY_D2D 3

/* Debug flags of VTASetDebugMode. */
#define VTA_DEBUG_DUMP_INSN (1 << 1)
#define VTA_DEBUG_DUMP_UOP (1 << 2)
#define VTA_DEBUG_SKIP_READ_BARRIER (1 << 3)
#define VTA_DEBUG_SKIP_WRITE_BARRIER (1 << 4)
#define VTA_DEBUG_FORCE_SERIAL (1 << 5)

#define ALLOC_ALIGNMENT 64

/* Allocates a device buffer; returns a buffer handle (not a CPU pointer: see VTABufferCPUPtr). */
TVM_DLL void* VTABufferAlloc(size_t size);

/* Frees a buffer handle. Freeing an unknown or already freed handle is reported, not fatal. */
TVM_DLL void VTABufferFree(void* buffer);

/*
 * Copies `size` bytes. kind_mask bit 0: `to` is a buffer handle; bit 1: `from` is a buffer
 * handle; other operands are CPU pointers.
 */
TVM_DLL void VTABufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset,
                           size_t size, int kind_mask);

typedef void* VTACommandHandle;

/* Frees the calling thread's command queue and its device. Commands queued since the last
 * VTASynchronize never run: that is reported as an error (VTARuntimeLastError). */
TVM_DLL void VTARuntimeShutdown();

/* The calling thread's command queue. */
TVM_DLL VTACommandHandle VTATLSCommandHandle();

/* CPU address of a buffer handle (a plain CPU pointer is returned unchanged). */
TVM_DLL void* VTABufferCPUPtr(VTACommandHandle cmd, void* buffer);

TVM_DLL void VTAWriteBarrier(VTACommandHandle cmd, void* buffer, uint32_t elem_bits,
                             uint32_t start, uint32_t extent);

TVM_DLL void VTAReadBarrier(VTACommandHandle cmd, void* buffer, uint32_t elem_bits,
                            uint32_t start, uint32_t extent);

TVM_DLL void VTASetDebugMode(VTACommandHandle cmd, int debug_flag);

/*
 * Queues a 2D strided load of y_size rows of x_size elements (row stride x_stride elements,
 * starting src_elem_offset elements into the buffer) into SRAM `dst_memory_type` at
 * `dst_sram_index`, surrounded by zero padding.
 */
TVM_DLL void VTALoadBuffer2D(VTACommandHandle cmd, void* src_dram_addr, uint32_t src_elem_offset,
                             uint32_t x_size, uint32_t y_size, uint32_t x_stride,
                             uint32_t x_pad_before, uint32_t y_pad_before, uint32_t x_pad_after,
                             uint32_t y_pad_after, uint32_t dst_sram_index,
                             uint32_t dst_memory_type);

/* Queues a 2D strided store from SRAM to a buffer (elements truncated to the output width). */
TVM_DLL void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index,
                              uint32_t src_memory_type, void* dst_dram_addr,
                              uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size,
                              uint32_t x_stride);

/* Records one micro-op into the kernel being recorded (only inside a `finit` closure). */
TVM_DLL void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index,
                        uint32_t src_index, uint32_t wgt_index, uint32_t opcode,
                        uint32_t use_imm, int32_t imm_val);

/* Opens one of at most two micro-op loops of the kernel being recorded. */
TVM_DLL void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                             uint32_t wgt_factor);

TVM_DLL void VTAUopLoopEnd();

/*
 * Queues a GEMM instruction running the micro-kernel that `finit(signature)` records. The
 * kernel is recorded once per (uop_handle, signature bytes) and cached; `*uop_handle` must be
 * a pointer-sized slot initialised to NULL (a static in generated code). Returns 0 on success.
 */
TVM_DLL int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes);

/* As VTAPushGEMMOp, for an ALU micro-kernel. */
TVM_DLL int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes);

/* Dependency tokens between queues 1 = load, 2 = compute, 3 = store. Return 0 on success. */
TVM_DLL int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid);

TVM_DLL int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid);

/* Appends FINISH, runs the queued program on the device and waits for it. */
TVM_DLL void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles);

/* ---- vtac additions ---------------------------------------------------------------------- */

/*
 * Selects the hardware configuration: a path to a vta_config.json, a JSON text (starting with
 * '{'), or NULL for TVM's default. Without a call, the VTA_CONFIG environment variable (a path
 * or JSON text) is read, else the default is used. Shuts down the calling thread's command
 * queue so that the next VTATLSCommandHandle uses the new configuration. Returns 0 on success;
 * on failure the previous configuration stays active and VTARuntimeLastError says why.
 */
TVM_DLL int VTARuntimeSetConfig(const char* path_or_json);

/* The active configuration as TVM's vta_config.json text (owned by the library). */
TVM_DLL const char* VTARuntimeConfigJSON(void);

/*
 * The most recent error reported since the last VTARuntimeClearError on this thread ("" if none).
 * Every error is also logged through spdlog.
 */
TVM_DLL const char* VTARuntimeLastError(void);

/* Number of errors reported since the last VTARuntimeClearError on this thread. */
TVM_DLL int VTARuntimeErrorCount(void);

TVM_DLL void VTARuntimeClearError(void);

/*
 * Records an error of the caller (e.g. compiled code whose argument check failed), so that it
 * is retrieved like the runtime's own: VTARuntimeLastError, VTARuntimeErrorCount.
 */
TVM_DLL void VTARuntimeReportError(const char* message);

/*
 * Drops, unrun, the commands queued on the calling thread since its last VTASynchronize (a
 * vtac addition). Compiled code calls it when it returns a failure, so that a caller that
 * handles the error can go on: a failed command would otherwise make the next VTASynchronize
 * discard the next call's program as well.
 */
TVM_DLL void VTARuntimeDiscardCommands(void);

/*
 * The size in bytes of a live buffer handle (VTABufferAlloc), 0 for anything else (a freed
 * handle, a CPU pointer); reports nothing. Compiled graphs check the VTA buffers a caller
 * passes with it.
 */
TVM_DLL size_t VTABufferSize(const void* buffer);

#ifdef __cplusplus
}
#endif

#endif  // VTA_RUNTIME_RUNTIME_H_
