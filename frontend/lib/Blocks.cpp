// Blocks: `with T.block("name"):` and what its body may declare — axes
// (T.axis.remap / spatial / reduce), T.reads / T.writes (inferred with the
// IR's region inference when absent), T.where, T.init, T.block_attr,
// T.alloc_buffer, T.match_buffer — and the implicit root block TVM puts
// around a function body that contains blocks.
#include "FunctionBuilder.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/RegionInference.h"

namespace vtac::frontend {

using ir::DataType;
using ir::Expr;
using ir::Stmt;

BlockFrame *FunctionBuilder::currentBlock() {
  return blocks_.size() > 1 ? &blocks_.back() : nullptr;
}

Stmt FunctionBuilder::buildBlock(CallArgs &args, Grammar::SuiteContext *suite, ir::SourceLoc at) {
  BlockFrame frame;
  frame.loc = at;
  if (!args.positional.empty())
    if (auto name = toString(args.positional[0], "a block name"))
      frame.name = *name;
  for (const auto &[key, value] : args.keywords)
    if (key != "no_realize")
      error(value.loc, "unexpected keyword argument '" + key + "' for T.block");
  hasBlocks_ = true;
  blocks_.push_back(std::move(frame));
  pushScope();
  Stmt body = buildSuite(suite);
  popScope();
  BlockFrame block = std::move(blocks_.back());
  blocks_.pop_back();
  if (!body)
    body = ir::make<ir::Evaluate>(ir::intImm(0), at);

  auto built = ir::make<ir::Block>(block.name, block.iterVars, std::vector<ir::BufferRegion>{},
                                   std::vector<ir::BufferRegion>{}, body, block.init,
                                   block.allocBuffers, block.matchBuffers, block.annotations, at);
  // As TVM does when T.reads / T.writes are missing: infer them from the body.
  ir::BlockAccessRegions inferred;
  if (!block.reads || !block.writes) {
    // Buffers whose `B.data` uses count as accesses: the function's and those
    // allocated by enclosing blocks.
    std::vector<ir::BufferRef> known;
    for (const auto &[param, buffer] : bufferMap_)
      known.push_back(buffer);
    for (const BlockFrame &outer : blocks_)
      known.insert(known.end(), outer.allocBuffers.begin(), outer.allocBuffers.end());
    inferred = ir::inferAccessRegions(*built, known);
  }
  auto *withRegions = ir::copyNode(*built);
  withRegions->reads = block.reads ? *block.reads : inferred.reads;
  withRegions->writes = block.writes ? *block.writes : inferred.writes;
  built = ir::BlockRef(withRegions);
  return ir::make<ir::BlockRealize>(block.bindings, block.predicate, built, at);
}

// Statements that only declare something about the enclosing block. Returns
// false when `path` is not one of them.
bool FunctionBuilder::handleBlockDeclaration(const std::string &path, CallArgs &args,
                                             ir::SourceLoc at) {
  bool isRegions = path == "T.reads" || path == "T.writes";
  if (!isRegions && path != "T.where" && path != "T.block_attr")
    return false;
  BlockFrame *block = currentBlock();
  if (!block) {
    error(at, path + " must be inside a block");
    return true;
  }
  if (isRegions) {
    auto &slot = path == "T.reads" ? block->reads : block->writes;
    if (slot) {
      error(at, "block '" + block->name + "' has more than one " + path);
      return true;
    }
    std::vector<ir::BufferRegion> regions;
    // T.reads(A[i], B[j]) or T.reads([A[i], B[j]]).
    std::vector<Value> items = args.positional.size() == 1 && args.positional[0].isSequence()
                                   ? args.positional[0].items
                                   : args.positional;
    bool ok = true;
    for (const Value &item : items) {
      ir::BufferRegion region = toRegion(item);
      ok &= bool(region.buffer);
      if (region.buffer)
        regions.push_back(std::move(region));
    }
    if (ok)
      slot = std::move(regions);
    return true;
  }
  if (args.positional.size() != 1) {
    error(at, path + " takes one argument");
    return true;
  }
  if (path == "T.where") {
    Expr predicate = toExprOf(args.positional[0], DataType::boolTy(), "a condition");
    if (predicate && !predicate->dtype.isBool())
      error(args.positional[0].loc, "T.where needs a bool condition, got " + predicate->dtype.str());
    else if (predicate && !ir::isConstInt(predicate, 1))
      block->predicate = predicate;  // a literal-true predicate is stored as none
    return true;
  }
  if (auto attrs = toAttrMap(args.positional[0]))
    for (const auto &[key, value] : *attrs)
      block->annotations.set(key, value);
  return true;
}

static std::optional<ir::IterType> axisKind(char kind) {
  if (kind == 'S')
    return ir::IterType::DataPar;
  if (kind == 'R')
    return ir::IterType::CommReduce;
  return std::nullopt;
}

// vi, vj, vk = T.axis.remap("SSR", [i, j, k])  /  vi = T.axis.spatial(128, i)
void FunctionBuilder::bindBlockAxes(const NameList &names, const std::string &path, CallArgs &args,
                                    ir::SourceLoc at) {
  BlockFrame *block = currentBlock();
  auto defineInvalid = [&] {
    for (const auto &[name, where] : names)
      define(name, Value::invalid(), where);
  };
  if (!block) {
    error(at, path + " must be inside a block");
    return defineInvalid();
  }
  auto addAxis = [&](const std::pair<std::string, ir::SourceLoc> &name, ir::Range dom,
                     ir::IterType type, Expr binding) {
    ir::VarRef var = ir::makeVar(name.first, binding->dtype, name.second);
    block->iterVars.push_back(ir::make<ir::IterVar>(var, dom, type, "", name.second));
    block->bindings.push_back(binding);
    define(name.first, Value::ofExpr(var, name.second), name.second);
  };
  if (path == "T.axis.remap") {
    if (args.positional.size() != 2) {
      error(at, "T.axis.remap takes the axis kinds and a list of loop variables");
      return defineInvalid();
    }
    std::optional<std::string> kinds = toString(args.positional[0], "axis kinds such as \"SSR\"");
    const Value &bindings = args.positional[1];
    if (!kinds)
      return defineInvalid();
    if (!bindings.isSequence()) {
      error(bindings.loc, "T.axis.remap needs a list of loop variables");
      return defineInvalid();
    }
    if (kinds->size() != bindings.items.size()) {
      error(at, "T.axis.remap has " + std::to_string(kinds->size()) + " axis kinds \"" + *kinds +
                    "\" but " + std::to_string(bindings.items.size()) + " loop variables");
      return defineInvalid();
    }
    if (names.size() != kinds->size()) {
      error(at, "T.axis.remap defines " + std::to_string(kinds->size()) + " axes but " +
                    std::to_string(names.size()) + (names.size() == 1 ? " name is" : " names are") +
                    " assigned");
      return defineInvalid();
    }
    for (size_t i = 0; i < names.size(); ++i) {
      std::optional<ir::IterType> type = axisKind((*kinds)[i]);
      if (!type) {
        error(args.positional[0].loc, std::string("unknown axis kind '") + (*kinds)[i] +
                                          "' in T.axis.remap (expected 'S' or 'R')");
        define(names[i].first, Value::invalid(), names[i].second);
        continue;
      }
      Expr binding = toExpr(bindings.items[i], "a loop variable");
      auto *var = binding ? binding.as<ir::Var>() : nullptr;
      auto domain = var ? loopDomains_.find(var) : loopDomains_.end();
      if (domain == loopDomains_.end()) {
        if (binding)
          error(bindings.items[i].loc, "T.axis.remap binds loop variables only");
        define(names[i].first, Value::invalid(), names[i].second);
        continue;
      }
      addAxis(names[i], domain->second, *type, binding);
    }
    return;
  }
  static const std::pair<const char *, ir::IterType> kinds[] = {
      {"T.axis.spatial", ir::IterType::DataPar}, {"T.axis.S", ir::IterType::DataPar},
      {"T.axis.reduce", ir::IterType::CommReduce}, {"T.axis.R", ir::IterType::CommReduce},
      {"T.axis.scan", ir::IterType::Ordered},     {"T.axis.opaque", ir::IterType::Opaque}};
  auto kind = std::find_if(std::begin(kinds), std::end(kinds),
                           [&](const auto &entry) { return path == entry.first; });
  if (kind == std::end(kinds)) {
    error(at, "unknown function '" + path + "'");
    return defineInvalid();
  }
  if (names.size() != 1) {
    error(at, path + " defines one axis, " + std::to_string(names.size()) + " names are assigned");
    return defineInvalid();
  }
  if (args.positional.size() != 2) {
    error(at, path + " takes a domain and a binding, as in " + path + "(128, i)");
    return defineInvalid();
  }
  Value binding = args.positional[1];
  binding.expr = toExpr(binding, "a binding");
  if (!binding.expr)
    return defineInvalid();
  DataType dtype = binding.literal ? DataType::int32() : binding.expr->dtype;
  if (binding.literal) {
    // A constant binding takes the domain's dtype when it has one.
    Value domain = args.positional[0];
    if (domain.kind == Value::Kind::Expr && !domain.literal)
      dtype = domain.expr->dtype;
    binding.expr = toExprOf(binding, dtype, "a binding");
  }
  ir::Range dom = toRange(args.positional[0], dtype);
  if (!dom.defined())
    return defineInvalid();
  addAxis(names[0], dom, kind->second, binding.expr);
}

// TVM wraps the body of a function that uses blocks in a block named "root",
// which owns the buffers allocated at function level.
Stmt FunctionBuilder::wrapInRootBlock(Stmt body) {
  BlockFrame &root = blocks_.front();
  if (!hasBlocks_ && root.allocBuffers.empty())
    return body;
  if (auto *realize = body.as<ir::BlockRealize>())
    if (realize->block->name == "root" && realize->iterValues.empty() && root.allocBuffers.empty())
      return body;  // written out explicitly
  auto block = ir::make<ir::Block>("root", std::vector<ir::IterVarRef>{},
                                   std::vector<ir::BufferRegion>{}, std::vector<ir::BufferRegion>{},
                                   body, nullptr, root.allocBuffers,
                                   std::vector<ir::MatchBufferRegion>{}, ir::AttrMap{}, body->loc());
  return ir::make<ir::BlockRealize>(std::vector<Expr>{}, nullptr, block, body->loc());
}

} // namespace vtac::frontend
