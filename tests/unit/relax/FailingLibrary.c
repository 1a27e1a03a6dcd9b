/* A library whose initialisation fails, for the --load-library error path. */
#include "vtac/func_registry.h"

int vtac_library_init(void) {
  vtac_set_last_error("the accelerator this library needs is absent");
  return 1;
}
