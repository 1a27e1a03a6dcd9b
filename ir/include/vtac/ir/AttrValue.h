// Attribute values: the payload of function attributes (T.func_attr), block annotations
// (T.block_attr) and loop annotations — None, bool, int, float, string, an expression, an
// array or a string-keyed map of attribute values.
//
// AttrMap keeps its keys sorted, so the order a dictionary was written in never matters (the
// printer writes keys in that order, and structural equality compares maps entry by entry).
// Literals from the text become plain values (bool/int/float/string); Expr is for anything
// that mentions variables or typed constants.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "vtac/ir/Expr.h"

namespace vtac::ir {

class AttrValue;

class AttrMap {
public:
  using Entry = std::pair<std::string, AttrValue>;

  // Inserts or replaces.
  void set(std::string key, AttrValue value);
  // nullptr when absent.
  const AttrValue *find(llvm::StringRef key) const;
  bool contains(llvm::StringRef key) const { return find(key) != nullptr; }
  bool erase(llvm::StringRef key);

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
  std::vector<Entry>::const_iterator end() const { return entries_.end(); }

private:
  std::vector<Entry> entries_;  // sorted by key
};

class AttrValue {
public:
  using Array = std::vector<AttrValue>;
  using Storage = std::variant<std::monostate, bool, int64_t, double, std::string, Expr, Array, AttrMap>;

  AttrValue() = default;  // None
  AttrValue(bool v) : value_(v) {}
  AttrValue(int v) : value_(int64_t(v)) {}
  AttrValue(int64_t v) : value_(v) {}
  AttrValue(double v) : value_(v) {}
  AttrValue(std::string v) : value_(std::move(v)) {}
  AttrValue(const char *v) : value_(std::string(v)) {}
  AttrValue(Expr v) : value_(std::move(v)) {}
  AttrValue(Array v) : value_(std::move(v)) {}
  AttrValue(AttrMap v) : value_(std::move(v)) {}

  bool isNone() const { return std::holds_alternative<std::monostate>(value_); }
  bool isBool() const { return std::holds_alternative<bool>(value_); }
  bool isInt() const { return std::holds_alternative<int64_t>(value_); }
  bool isFloat() const { return std::holds_alternative<double>(value_); }
  bool isString() const { return std::holds_alternative<std::string>(value_); }
  bool isExpr() const { return std::holds_alternative<Expr>(value_); }
  bool isArray() const { return std::holds_alternative<Array>(value_); }
  bool isMap() const { return std::holds_alternative<AttrMap>(value_); }

  bool asBool() const { return std::get<bool>(value_); }
  int64_t asInt() const { return std::get<int64_t>(value_); }
  double asFloat() const { return std::get<double>(value_); }
  const std::string &asString() const { return std::get<std::string>(value_); }
  const Expr &asExpr() const { return std::get<Expr>(value_); }
  const Array &asArray() const { return std::get<Array>(value_); }
  const AttrMap &asMap() const { return std::get<AttrMap>(value_); }

  const Storage &storage() const { return value_; }

private:
  Storage value_;
};

}  // namespace vtac::ir
