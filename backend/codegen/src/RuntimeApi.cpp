#include "vtac/codegen/RuntimeApi.h"

#include <llvm/ADT/StringMap.h>

namespace vtac::codegen {

const char *runtimeSignature(llvm::StringRef name) {
  static const llvm::StringMap<const char *> signatures = {
      {"VTATLSCommandHandle", "p"},      {"VTALoadBuffer2D", "vppiiiiiiiiii"},
      {"VTAStoreBuffer2D", "vpiipiiii"}, {"VTAUopPush", "viiiiiiii"},
      {"VTAUopLoopBegin", "viiii"},      {"VTAUopLoopEnd", "v"},
      {"VTAPushGEMMOp", "ipppi"},        {"VTAPushALUOp", "ipppi"},
      {"VTADepPush", "ipii"},            {"VTADepPop", "ipii"},
      {"VTASynchronize", "vpi"},         {"VTASetDebugMode", "vpi"},
      {"VTABufferCPUPtr", "ppp"},        {"VTAWriteBarrier", "vppiii"},
      {"VTAReadBarrier", "vppiii"},      {"VTARuntimeErrorCount", "i"},
      {"VTARuntimeReportError", "vp"},   {"VTABufferAlloc", "pz"},
      {"VTABufferFree", "vp"},           {"VTABufferCopy", "vpzpzzi"},
      {"VTABufferSize", "zp"},           {"VTARuntimeDiscardCommands", "v"}};
  auto found = signatures.find(name);
  return found == signatures.end() ? nullptr : found->second;
}

bool returnsStatus(llvm::StringRef name) {
  return name == "VTADepPush" || name == "VTADepPop" || name == "VTAPushGEMMOp" || name == "VTAPushALUOp";
}

bool isHostScope(llvm::StringRef scope) {
  return scope != "local.inp_buffer" && scope != "local.wgt_buffer" && scope != "local.acc_buffer" &&
         scope != "local.uop";
}

bool reportsThroughErrorCount(llvm::StringRef name) {
  const char *signature = runtimeSignature(name);
  return signature && signature[0] == 'v' && name != "VTARuntimeReportError";
}

}  // namespace vtac::codegen
