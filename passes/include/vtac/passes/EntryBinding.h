// The entry checks of a compiled function's parameters (TVM's MakePackedAPI binding, for the
// DLTensor ABI), shared by the prim_func host lowering and the Relax graph lowering
// (codegen/RelaxHostLowering.h), and the DLTensor field ops they are written with.
//
// bindEntryParameters wraps `body` in, for each tensor parameter in order, AssertStmts (not
// NULL, a host tensor for a graph unless EntryParam::hostOrVta, ndim, dtype, each constant
// dimension; byte_offset 0 for VTA buffers; compact strides) whose messages name the function
// (`symbol`) and the argument, LetStmts binding each symbolic size from the first tensor that
// has it (later tensors are checked against it) and, unless the parameter only passes its
// tensor on (EntryParam::bindsData false), the buffer's data variable to the tensor's data.
// Errors (located at the buffer): a parameter whose dtype DLPack cannot describe, explicit
// strides, a dimension that is an expression of sizes no earlier dimension gives, more
// dimensions than a compiled parameter may have.
#pragma once

#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"

namespace vtac::passes {

// Call ops over a DLTensor parameter that the entry checks are written with; every code
// emitter implements each one.
namespace hostop {
// (tensor) -> handle: DLTensor::data, plus byte_offset for host tensors.
inline constexpr const char *kTensorData = "vtac.dltensor_data";
// (tensor) -> bool: the DLTensor pointer is NULL.
inline constexpr const char *kTensorIsNull = "vtac.dltensor_is_null";
// (tensor) -> int32: device.device_type.
inline constexpr const char *kTensorDeviceType = "vtac.dltensor_device_type";
// (tensor) -> int32: DLTensor::ndim.
inline constexpr const char *kTensorNdim = "vtac.dltensor_ndim";
// (tensor) -> int32: dtype.code, dtype.bits, dtype.lanes.
inline constexpr const char *kTensorTypeCode = "vtac.dltensor_type_code";
inline constexpr const char *kTensorTypeBits = "vtac.dltensor_type_bits";
inline constexpr const char *kTensorTypeLanes = "vtac.dltensor_type_lanes";
// (tensor, dim) -> int64: shape[dim], strides[dim].
inline constexpr const char *kTensorShape = "vtac.dltensor_shape";
inline constexpr const char *kTensorStride = "vtac.dltensor_stride";
// (tensor) -> bool: strides != NULL.
inline constexpr const char *kTensorHasStrides = "vtac.dltensor_has_strides";
// (tensor) -> int64: byte_offset.
inline constexpr const char *kTensorByteOffset = "vtac.dltensor_byte_offset";
// (handle) -> int64: the bytes of a live VTABufferAlloc buffer (VTABufferSize), 0 for any other
// handle; INT64_MAX when the runtime cannot tell (TVM's has no VTABufferSize: weak reference).
inline constexpr const char *kVtaBufferBytes = "vtac.vta_buffer_bytes";
}  // namespace hostop

// One parameter of a compiled function.
struct EntryParam {
  ir::VarRef var;        // a DLTensor* handle for a buffer, the scalar itself otherwise
  ir::BufferRef buffer;  // null for a scalar parameter
  bool onVta = false;    // the buffer's data is a VTABufferAlloc handle
  bool bindsData = true;  // the body reads buffer->data (a graph only passes the tensor on)
  // A graph parameter that may be a host tensor (kDLCPU) or a VTA buffer (kDLExtDev, data a
  // VTABufferAlloc handle), told apart at run time (codegen/RelaxHostLowering.h).
  bool hostOrVta = false;
};

// `graph`: the function is a Relax graph, whose tensors must be host tensors unless hostOrVta.
llvm::Expected<ir::Stmt> bindEntryParameters(const std::string &symbol, bool graph,
                                             const std::vector<EntryParam> &params, ir::Stmt body);

// The statement bindEntryParameters wrapped its checks around, in `body` (a bound function's):
// what the function's body began with before (where combine-context-call bound the command
// handle). A body the checks ended in a sequence with is returned with its strides check.
ir::Stmt bodyWithinEntryChecks(const ir::Stmt &body);

// The bytes of `buffer`'s elements, as int64 (folded when the shape is constant).
ir::Expr tensorBytes(const ir::Buffer &buffer);

}  // namespace vtac::passes
