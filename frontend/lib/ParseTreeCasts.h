// Casts of ANTLR parse-tree contexts to the generated labelled-alternative classes.
#pragma once

#include <typeinfo>

namespace vtac::frontend {

/// `context` as the labelled-alternative class T when it is exactly that class, else null:
/// dynamic_cast without its cost (a type_info address comparison; the generated classes live in
/// one binary and have no subclasses).
template <class T, class Context> T *exactly(Context *context) {
  return context && &typeid(*context) == &typeid(T) ? static_cast<T *>(context) : nullptr;
}

}  // namespace vtac::frontend
