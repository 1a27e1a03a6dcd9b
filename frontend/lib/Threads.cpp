// Threads: TVM's environment threads of lowered (GPU-style) TIR.
//   bx = T.env_thread("blockIdx.x")               an IterVar bound to the thread tag
//   T.launch_thread(bx, 4)                        launches it over the rest of the body
//   tx = T.launch_thread("threadIdx.x", 8)        both at once, as TVM prints it
//   with T.launch_thread("threadIdx.x", 8) as tx: the scoped form
// A launch is an AttrStmt over the IterVar, whose domain becomes [0, extent) as TVM's
// LaunchThread sets it: "virtual_thread" for virtual threads, "thread_extent" otherwise.
#include "FunctionBuilder.h"

namespace vtac::frontend {

using ir::DataType;
using ir::Expr;

// `name = T.env_thread("tag", dtype="int32")`: the thread's variable takes the assigned name.
bool FunctionBuilder::bindEnvThread(const std::string &name, ir::SourceLoc where, CallArgs &args,
                                    ir::SourceLoc at) {
  const Value *tagValue = args.positional.empty() ? args.keyword("thread_tag") : &args.positional[0];
  if (!tagValue || args.positional.size() > 1) {
    error(at, "T.env_thread takes a thread tag, as in T.env_thread(\"threadIdx.x\")");
    return false;
  }
  std::optional<std::string> tag = toString(*tagValue, "a thread tag");
  std::optional<DataType> dtype = DataType::int32();
  if (const Value *dtypeValue = args.keyword("dtype"))
    dtype = toDataType(*dtypeValue);
  if (!tag || !dtype)
    return false;
  Value thread;
  thread.kind = Value::Kind::IterVar;
  thread.loc = where;
  thread.iterVar = ir::make<ir::IterVar>(ir::makeVar(name, *dtype, where), ir::Range{},
                                         ir::IterType::ThreadIndex, *tag, where);
  define(name, thread, where);
  return true;
}

// T.launch_thread(thread, extent) where thread is an env_thread or a tag; a tag's variable is
// named `name` when the launch is assigned (`tx = ...`, `as tx`), else after the tag.
std::optional<FunctionBuilder::AttrParts>
FunctionBuilder::buildLaunchThread(const std::string *name, ir::SourceLoc where, CallArgs &args,
                                   ir::SourceLoc at) {
  if (args.positional.size() != 2) {
    error(at, "T.launch_thread takes a thread (an env_thread or a tag) and an extent");
    return std::nullopt;
  }
  const Value &thread = args.positional[0];
  Expr extent = toExprOf(args.positional[1], DataType::int32(), "a thread extent");
  if (extent && !extent->dtype.isIntOrUInt()) {
    error(args.positional[1].loc, "a thread extent must be an integer, got " + extent->dtype.str());
    extent = nullptr;
  }
  ir::VarRef var;
  std::string tag;
  if (thread.kind == Value::Kind::IterVar) {
    if (name) {
      error(at, "T.launch_thread of an env_thread defines no name; launch it as a statement");
      return std::nullopt;
    }
    var = thread.iterVar->var;
    tag = thread.iterVar->threadTag;
  } else if (std::optional<std::string> text = toString(thread, "a thread tag or an env_thread")) {
    tag = *text;
    std::string varName = name ? *name : tag;
    std::replace(varName.begin(), varName.end(), '.', '_');
    var = ir::makeVar(varName, extent ? extent->dtype : DataType::int32(), name ? where : at);
    if (name)
      define(*name, Value::ofExpr(var, where), where);
  }
  if (!var || !extent)
    return std::nullopt;
  ir::Range dom{ir::intImm(0, extent->dtype), extent};
  auto iterVar = ir::make<ir::IterVar>(var, dom, ir::IterType::ThreadIndex, tag, at);
  return AttrParts{iterVar, ir::threadLaunchKey(tag), extent, at};
}

} // namespace vtac::frontend
