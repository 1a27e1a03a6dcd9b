// The edge between the C ABIs of libvta_runtime / libvta_sim and the C++ inside them.
//
// A C caller cannot catch a C++ exception: one leaving a C entry point unwinds through C frames
// (undefined) or ends in std::terminate. So every entry point runs its body through
// atApiBoundary: an exception thrown inside — std::bad_alloc above all — is reported through
// the library's own error function (logged, and recorded for its *LastError call) as
// "<api>: out of memory" or "<api>: internal error: <what>", and the entry point returns its
// failure value instead. Shared by both libraries; each passes its own report function.
#ifndef VTA_API_BOUNDARY_H_
#define VTA_API_BOUNDARY_H_

#include <exception>
#include <new>
#include <string>

namespace vta {

using ErrorReporter = void (*)(const std::string& message);

// Reports the exception being handled; must be called inside a catch block.
inline void reportCurrentException(const char* api, ErrorReporter report) noexcept {
  try {
    try {
      throw;
    } catch (const std::bad_alloc&) {
      report(std::string(api) + ": out of memory");
    } catch (const std::exception& error) {
      report(std::string(api) + ": internal error: " + error.what());
    } catch (...) {
      report(std::string(api) + ": internal error: unknown exception");
    }
  } catch (...) {
    // The report itself ran out of memory; the failure value still tells the caller.
  }
}

// body() for an entry point returning a value; `failure` when it throws.
template <typename Result, typename Body>
Result atApiBoundary(const char* api, ErrorReporter report, Result failure, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    reportCurrentException(api, report);
    return failure;
  }
}

// body() for an entry point returning nothing.
template <typename Body>
void atApiBoundary(const char* api, ErrorReporter report, Body&& body) noexcept {
  try {
    body();
  } catch (...) {
    reportCurrentException(api, report);
  }
}

}  // namespace vta

#endif  // VTA_API_BOUNDARY_H_
