// The process-wide name -> function table behind func_registry.h. Written in C++ for the map
// and the mutex; only the C ABI in the header is exported. Every entry point runs behind the
// runtime's exception boundary (vta/api_boundary.h): an exception (std::bad_alloc from the map or
// a name's copy, std::system_error from the mutex) becomes the function's failure value and a
// message in vtac_get_last_error, never an unwinding through the C caller.
#include "vtac/func_registry.h"

#include <map>
#include <mutex>
#include <string>

#include "vta/api_boundary.h"

namespace {

struct Entry {
  vtac_packed_func fn;
  void *resource;
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, Entry> entries;  // sorted, so vtac_func_name has a stable order
};

Registry &registry() {
  static Registry instance;
  return instance;
}

thread_local std::string lastError;

void recordError(const std::string &message) {
  try {
    lastError = message;
  } catch (...) {
    lastError = "out of memory";  // fits the string's inline buffer: assigning cannot allocate
  }
}

}  // namespace

using vta::atApiBoundary;

extern "C" {

int vtac_register_func(const char *name, vtac_packed_func fn, void *resource, int override) {
  return atApiBoundary("vtac_register_func", recordError, -1, [&] {
    if (!name || !fn) {
      recordError("vtac_register_func: name and function must not be NULL");
      return -1;
    }
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto [it, inserted] = r.entries.emplace(name, Entry{fn, resource});
    if (!inserted) {
      if (!override) {
        recordError(std::string("function '") + name + "' is already registered");
        return -1;
      }
      it->second = Entry{fn, resource};
    }
    return 0;
  });
}

int vtac_get_func(const char *name, vtac_packed_func *fn, void **resource) {
  return atApiBoundary("vtac_get_func", recordError, -1, [&] {
    if (!name) return -1;
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.entries.find(name);
    if (it == r.entries.end()) return -1;
    if (fn) *fn = it->second.fn;
    if (resource) *resource = it->second.resource;
    return 0;
  });
}

int vtac_remove_func(const char *name) {
  return atApiBoundary("vtac_remove_func", recordError, -1, [&] {
    if (!name) return -1;
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.entries.erase(name) ? 0 : -1;
  });
}

int32_t vtac_num_funcs(void) {
  return atApiBoundary("vtac_num_funcs", recordError, int32_t{-1}, [] {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return static_cast<int32_t>(r.entries.size());
  });
}

const char *vtac_func_name(int32_t index) {
  return atApiBoundary("vtac_func_name", recordError, static_cast<const char *>(nullptr),
                       [&]() -> const char * {
                         Registry &r = registry();
                         std::lock_guard<std::mutex> lock(r.mutex);
                         if (index < 0 || static_cast<size_t>(index) >= r.entries.size())
                           return nullptr;
                         auto it = r.entries.begin();
                         std::advance(it, index);
                         return it->first.c_str();
                       });
}

const char *vtac_get_last_error(void) { return lastError.c_str(); }

void vtac_set_last_error(const char *message) {
  atApiBoundary("vtac_set_last_error", recordError,
                [&] { recordError(message ? message : ""); });
}
int64_t vtac_tensor_num_elements(const vtac_tensor *tensor) {
  int64_t count = 1;
  for (int32_t i = 0; i < tensor->ndim; ++i) count *= tensor->shape[i];
  return count;
}

int64_t vtac_tensor_num_bytes(const vtac_tensor *tensor) {
  int64_t bitsPerElement = int64_t(tensor->dtype.bits) * (tensor->dtype.lanes ? tensor->dtype.lanes : 1);
  return (vtac_tensor_num_elements(tensor) * bitsPerElement + 7) / 8;
}

}  // extern "C"
