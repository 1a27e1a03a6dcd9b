/*
 * The VTA functional simulator's own C API (libvta_sim), next to the driver API it
 * implements (vta/driver.h): statistics, configuration, error reporting and the choice of
 * the GEMM kernel. Statistics use the names and definitions of TVM's functional simulator.
 */
#ifndef VTA_SIM_H_
#define VTA_SIM_H_

#include <vta/driver.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Statistics of the calling thread since the last VTASimClearStats, as a JSON object with
 * TVM's counters inp_load_nbytes, wgt_load_nbytes, acc_load_nbytes, uop_load_nbytes,
 * out_store_nbytes, gemm_counter, alu_counter (plus vtac's insn_counter and finish_counter),
 * then the timing model's cycles and, per module (fetch, load, compute, store),
 * <module>_busy_cycles and <module>_stalled_cycles (docs/timing-model.md).
 * The string is owned by the library and valid until the next call on this thread.
 */
const char* VTASimStatsJSON(void);

void VTASimClearStats(void);

/*
 * Selects the hardware configuration of devices allocated afterwards: a path to a
 * vta_config.json, a JSON text (starting with '{'), or NULL for TVM's default. Without a call,
 * the VTA_CONFIG environment variable (a path or JSON text) is read, else the default is used.
 * Returns 0 on success; on failure the configuration is unchanged (see VTASimLastError).
 */
int VTASimSetConfig(const char* path_or_json);

/* The active configuration as TVM's vta_config.json text (owned by the library). */
const char* VTASimConfigJSON(void);

/*
 * Traces the instructions VTADeviceRun executes on this thread, in execution order: `callback`
 * receives one decoded line per instruction ("[index] LOAD ... start_cycle=N", the cycle the
 * timing model starts it at in its run), like TVM's VTA_DEBUG_DUMP_INSN but for what ran. NULL
 * stops tracing.
 */
void VTASimSetTrace(void (*callback)(const char* line, void* context), void* context);

/* One instruction of a run as the timing model schedules it (VTASimSetTimeline). */
typedef struct {
  uint32_t index;      /* in the program */
  const char* module;  /* "load", "compute" or "store" */
  const char* opcode;  /* "LOAD", "STORE", "GEMM", "ALU" or "FINISH" */
  uint64_t start_cycle, end_cycle;
} VTASimTimelineEntry;

/*
 * Reports the timing model's schedule of every successful VTADeviceRun on this thread:
 * `callback` receives each instruction (the load module's, then compute's, then store's, each
 * in program order), its cycles counted as the statistics' `cycles` count them (from the last VTASimClearStats, each run starting where the last ended).
 * NULL stops reporting.
 */
void VTASimSetTimeline(void (*callback)(const VTASimTimelineEntry* entry, void* context),
                       void* context);

/*
 * Limits for the VTADeviceRun calls of this thread from now on: at most `max_instructions`
 * instructions executed in all (0: no limit) and `timeout_seconds` of wall time from this call
 * (0: no limit). A run that reaches one stops with VTA_SIM_ERR_LIMIT and a message naming the
 * limit and the instruction it stopped at. The clock is read every 256 instructions and every
 * 2^16 micro-op executions inside one GEMM or ALU instruction (but a GEMM small enough for one
 * cached plan, at most 2^20 tile products, runs to its end). VTASimSetRunLimits(0, 0) removes
 * the limits.
 */
void VTASimSetRunLimits(uint64_t max_instructions, double timeout_seconds);

/* Status codes of VTADeviceRun (0 is success). */
#define VTA_SIM_OK 0
#define VTA_SIM_ERR_BAD_INSTRUCTION 1 /* unknown opcode, memory type or ALU opcode */
#define VTA_SIM_ERR_OUT_OF_RANGE 2    /* SRAM index, DRAM address or buffer overflow */
#define VTA_SIM_ERR_DEADLOCK 3        /* a dependency pop that can never be satisfied */
#define VTA_SIM_ERR_BAD_ARGUMENT 4    /* unknown device handle, instruction address, ... */
#define VTA_SIM_ERR_INTERNAL 5        /* out of host memory, or another failure inside */
#define VTA_SIM_ERR_UNBALANCED 6      /* dependency tokens pushed and never popped in a run */
#define VTA_SIM_ERR_LIMIT 7           /* VTASimSetRunLimits: instruction count or time reached */

/*
 * The most recent error since the last VTASimClearError on this thread, with the instruction index
 * and its fields ("" if none). Errors are also logged through spdlog.
 */
const char* VTASimLastError(void);

void VTASimClearError(void);

/*
 * GEMM inner kernel: "auto" (the fastest the CPU supports), "avx512vnni", "avx2" or
 * "portable". All give identical results. Returns 0, or -1 if the CPU lacks the instructions.
 * The VTA_SIM_GEMM_KERNEL environment variable sets the initial choice.
 */
int VTASimSetGemmKernel(const char* name);

/* The kernel in use ("avx512vnni", "avx2" or "portable"). */
const char* VTASimGemmKernel(void);

/*
 * How many programs VTADeviceRun has decoded and validated on this thread. A device keeps the
 * programs it validated (64 MiB of them, the least recently run dropped first) and runs one
 * equal byte for byte to a kept one without validating it again.
 */
uint64_t VTASimProgramValidations(void);

#ifdef __cplusplus
}
#endif

#endif  // VTA_SIM_H_
