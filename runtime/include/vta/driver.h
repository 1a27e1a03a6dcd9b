/*
 * The VTA driver API: the boundary between a VTA runtime and a VTA device.
 *
 * Names, signatures and constants follow TVM's vta/driver.h exactly, so that a runtime
 * written against TVM's header drives our simulator (libvta_sim) and our runtime
 * (libvta_runtime) drives any TVM-compatible device library. Device memory is addressed by
 * 32-bit "physical" addresses; a host pointer returned by VTAMemAlloc maps to one through
 * VTAMemGetPhyAddr, and instructions refer to DRAM only by physical address.
 */
#ifndef VTA_DRIVER_H_
#define VTA_DRIVER_H_

#ifdef __cplusplus
extern "C" {
#endif

#include <stdint.h>
#include <stdlib.h>

/* Memory management constants for cached and non-cached memory (VTAMemAlloc's `cached`). */
#define VTA_CACHED 1
#define VTA_NOT_CACHED 0

/* Largest physically contiguous transfer (bytes) a runtime may hand to the device at once. */
#ifndef VTA_MAX_XFER
#define VTA_MAX_XFER (1 << 25)
#endif

/* Page granularity of device memory: physical addresses of allocations are page aligned. */
#define VTA_PAGE_BITS 12
#define VTA_PAGE_BYTES (1 << VTA_PAGE_BITS)

typedef void* VTADeviceHandle;

#ifdef USE_VTA64
typedef uint64_t vta_phy_addr_t;
#else
typedef uint32_t vta_phy_addr_t;
#endif

/* Allocates a device (one set of on-chip SRAMs and dependency queues). */
VTADeviceHandle VTADeviceAlloc();

void VTADeviceFree(VTADeviceHandle handle);

/*
 * Runs `insn_count` 128-bit instructions starting at physical address `insn_phy_addr` until
 * FINISH. Returns 0 on success; non-zero on timeout or failure.
 */
int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
                 uint32_t wait_cycles);

/* Allocates `size` bytes of device-visible memory; returns its host (virtual) address. */
void* VTAMemAlloc(size_t size, int cached);

void VTAMemFree(void* buf);

/* Physical address of a host address inside a VTAMemAlloc allocation. */
vta_phy_addr_t VTAMemGetPhyAddr(void* buf);

void VTAMemCopyFromHost(void* dst, const void* src, size_t size);

void VTAMemCopyToHost(void* dst, const void* src, size_t size);

/* Makes CPU writes visible to the device (write back the CPU cache). */
void VTAFlushCache(void* vir_addr, vta_phy_addr_t phy_addr, int size);

/* Makes device writes visible to the CPU (invalidate the CPU cache). */
void VTAInvalidateCache(void* vir_addr, vta_phy_addr_t phy_addr, int size);

#ifdef __cplusplus
}
#endif

#endif  // VTA_DRIVER_H_
